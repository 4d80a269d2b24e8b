"""The rater's writes stay few statements: each is plain ORM code, and a change that adds a query per label or
per dimension (a lazy related object, a deferred field) shows up here before it shows up in the benchmark.

The counts include BEGIN and COMMIT (or the savepoint a test transaction turns them into) on either database.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.services.annotations import AnnotationInput, annotation_save_draft, annotation_submit
from tests.annotator.worlds import complete_input

pytestmark = pytest.mark.django_db


def _statements(call) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        call()
    return [query["sql"] for query in captured.captured_queries]


def test_autosave_submit_and_the_freeze_stay_within_their_statements(world, users):
    rater_a, rater_b = users["rater_a"], users["rater_b"]
    a, b = world.a.annotation, world.b.annotation
    symptom = world.cats["symptom"][0].pk
    for annotation, rater in ((a, rater_a), (b, rater_b)):  # the assignments move to "drafted" first
        annotation_save_draft(annotation=annotation, actor=rater, data=AnnotationInput(note="warm"), expected_version=1)

    first = _statements(
        lambda: annotation_save_draft(
            annotation=a.pk, actor=rater_a, data=AnnotationInput(values={"symptom": [symptom]}), expected_version=2
        )
    )
    note_only = _statements(
        lambda: annotation_save_draft(
            annotation=a.pk,
            actor=rater_a,
            data=AnnotationInput(values={"symptom": [symptom]}, note="n"),
            expected_version=3,
        )
    )
    submit = _statements(
        lambda: annotation_submit(annotation=a.pk, actor=rater_a, data=complete_input(world), expected_version=4)
    )
    completing = _statements(
        lambda: annotation_submit(annotation=b.pk, actor=rater_b, data=complete_input(world), expected_version=2)
    )
    # Today's counts, as the ceiling: an autosave that writes labels, one that changes the note only (no label
    # row is written), a submit that leaves the issue open, and the one that completes it (the freeze of both
    # annotations and the adjudication record: the submit's history entry goes in with the freeze's, in one INSERT).
    assert len(first) <= 9, first
    assert len(note_only) <= 8 and not any("annotationvalue" in sql and "SELECT" not in sql for sql in note_only)
    assert len(submit) <= 15, submit
    assert len(completing) <= 22, completing
    assert sum('INSERT INTO "annotator_annotationhistory"' in sql for sql in completing) == 1, completing


def test_the_completing_submit_records_the_submit_before_the_freeze(world, users):
    from annotator.models import AnnotationHistory

    rater_a, rater_b = users["rater_a"], users["rater_b"]
    a, b = world.a.annotation, world.b.annotation
    annotation_submit(annotation=a.pk, actor=rater_a, data=complete_input(world), expected_version=1)
    annotation_submit(annotation=b.pk, actor=rater_b, data=complete_input(world), expected_version=1)

    entries = list(AnnotationHistory.objects.filter(annotation__in=[a, b]).order_by("pk"))
    assert [(e.annotation_id, e.action, e.version) for e in entries] == [
        (a.pk, "submit", 2),
        (b.pk, "submit", 2),
        (a.pk, "freeze", 3),
        (b.pk, "freeze", 3),
    ]
    submit_b, freeze_b = entries[1], entries[3]
    assert submit_b.after["frozen"] is False and freeze_b.before == submit_b.after
    assert freeze_b.after == {**submit_b.after, "frozen": True, "version": 3}
