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
    # annotations and the adjudication record).
    assert len(first) <= 9, first
    assert len(note_only) <= 8 and not any("annotationvalue" in sql and "SELECT" not in sql for sql in note_only)
    assert len(submit) <= 15, submit
    assert len(completing) <= 23, completing
