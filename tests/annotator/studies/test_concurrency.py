"""Two tabs or two raters writing at the same moment, on every supported database."""

import pytest

from annotator.models import Annotation
from annotator.services.annotations import AnnotationInput, annotation_save_draft, annotation_submit
from tests.annotator.worlds import build_world, complete_input
from tests.concurrency import raised, run_together

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_tabs_saving_the_same_version_one_wins_the_other_conflicts(users):
    world = build_world(users, n_issues=2)
    annotation = world.a.annotation

    def save(note):
        return lambda: annotation_save_draft(
            annotation=annotation, actor=users["rater_a"], data=AnnotationInput(note=note), expected_version=1
        )

    outcomes = run_together(save("tab one"), save("tab two"))
    assert [type(error).__name__ for error in raised(outcomes)] == ["ConflictError"], outcomes
    annotation.refresh_from_db()
    assert annotation.version == 2
    assert annotation.note in {"tab one", "tab two"}


def test_both_raters_submitting_at_once_still_freeze_the_issue(users):
    world = build_world(users, n_issues=2)

    def submit(assignment, role):
        return lambda: annotation_submit(
            annotation=assignment.annotation, actor=users[role], data=complete_input(world), expected_version=1
        )

    outcomes = run_together(submit(world.a, "rater_a"), submit(world.b, "rater_b"))
    assert raised(outcomes) == [], outcomes
    frozen = Annotation.objects.filter(pk__in=[world.a.annotation.pk, world.b.annotation.pk], frozen=True).count()
    assert frozen == 2
