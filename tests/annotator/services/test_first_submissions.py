"""One writer of first submissions, for the app, the spreadsheets and replication packages alike."""

from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotator.models import Annotation, FirstSubmission, Study
from annotator.services import first_submissions
from annotator.services.first_submissions import FirstSubmissionDraft, first_submissions_record
from tests.annotator.worlds import labels, make_world, submit

pytestmark = pytest.mark.django_db


def _drafts(world, role: str, *, source=FirstSubmission.Source.PACKAGE) -> list[FirstSubmissionDraft]:
    symptom = world.dims["symptom"].pk
    return [
        FirstSubmissionDraft(
            annotation=Annotation.objects.select_related("assignment").get(pk=a.annotation.pk),
            values=[(symptom, world.cats["symptom"][0].pk), (symptom, world.cats["symptom"][0].pk)],
            submitted_at=timezone.now(),
            source=source,
        )
        for a in world.assignments[role]
    ]


def test_the_bulk_writer_keeps_an_existing_first_submission_and_records_the_rest(users, outsider):
    world = make_world(users, n_issues=3)
    submit(world, users, "rater_a", 0, **labels(world, 1, 1))
    kept = FirstSubmission.objects.get(annotation__assignment__rater=users["rater_a"])
    before = (kept.source, list(kept.values.values_list("category_id", flat=True)))

    created = first_submissions_record(drafts=_drafts(world, "rater_a"))

    assert len(created) == 2, "the annotation with a first submission is left out"
    kept.refresh_from_db()
    assert (kept.source, list(kept.values.values_list("category_id", flat=True))) == before
    for snapshot in created:
        assignment = snapshot.annotation.assignment
        assert (snapshot.study_issue_id, snapshot.rater_id) == (assignment.study_issue_id, assignment.rater_id)
        assert snapshot.values.count() == 1, "a (dimension, category) pair is written once"


def test_the_bulk_writer_needs_the_same_queries_for_one_or_many(users, outsider):
    world = make_world(users, n_issues=3)
    one, many = _drafts(world, "rater_a")[:1], _drafts(world, "rater_b")
    with CaptureQueriesContext(connection) as for_one:
        first_submissions_record(drafts=one)
    with CaptureQueriesContext(connection) as for_many:
        first_submissions_record(drafts=many)
    assert len(for_many) == len(for_one) <= 3


def test_a_replication_package_restores_first_submissions_through_the_one_writer(users, outsider, tmp_path):
    from annotator.services.exports import replication_package_write
    from annotator.services.exports.importing import study_export_import

    world = make_world(users, n_issues=2)
    for index in (0, 1):
        submit(world, users, "rater_a", index, **labels(world, 0, 0))
        submit(world, users, "rater_b", index, **labels(world, 0, 1))
    path = tmp_path / "package.zip"
    replication_package_write(study=Study.objects.get(pk=world.study.pk), target=path)

    writer = mock.Mock(wraps=first_submissions.first_submissions_record)
    with mock.patch("annotator.services.exports.first_layer.first_submissions_record", writer):
        result = study_export_import(path=path, name="Round trip")

    assert writer.call_count == 1
    assert len(writer.call_args.kwargs["drafts"]) == 4
    restored = FirstSubmission.objects.filter(study_issue__study=result.study)
    assert restored.count() == 4
    assert set(restored.values_list("source", flat=True)) == {FirstSubmission.Source.PACKAGE}
