import pytest
from django.http import Http404

from annotator.models import Assignment
from annotator.selectors.labelling import (
    annotation_get_for_user,
    assignment_next_for_rater,
    assignments_for_rater,
    rater_queue,
)
from annotator.selectors.studies import studies_visible_to, study_dashboard, study_get_for_user, study_list_rows
from annotator.services.annotations import AnnotationInput, annotation_save_draft, annotation_submit
from annotator.services.assignments import assignment_skip
from tests.annotator.worlds import complete_input


def test_a_rater_sees_only_their_own_assignments(world, users):
    mine = list(assignments_for_rater(rater=users["rater_a"], study=world.study))
    assert mine and {a.rater_id for a in mine} == {users["rater_a"].pk}


def test_next_is_the_first_unfinished_by_position_drafts_included(world, users):
    first, second = world.assignments["rater_a"][:2]
    assert assignment_next_for_rater(rater=users["rater_a"], study=world.study) == first
    annotation_submit(
        annotation=first.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    assert assignment_next_for_rater(rater=users["rater_a"], study=world.study) == second
    assignment_skip(assignment=second, actor=users["rater_a"], reason="duplicate")
    third = world.assignments["rater_a"][2]
    annotation_save_draft(
        annotation=third.annotation, actor=users["rater_a"], data=AnnotationInput(), expected_version=1
    )
    assert assignment_next_for_rater(rater=users["rater_a"], study=world.study) == third


def test_the_queue_counts_only_my_work(world, users):
    annotation_submit(
        annotation=world.b.annotation, actor=users["rater_b"], data=complete_input(world), expected_version=1
    )
    queue_a = rater_queue(rater=users["rater_a"], study=world.study)
    assert (queue_a["current"]["done"], queue_a["current"]["total"]) == (0, 5)
    assert queue_a["submitted"] == []
    queue_b = rater_queue(rater=users["rater_b"], study=world.study)
    assert queue_b["current"]["done"] == 1 and [a.pk for a in queue_b["submitted"]] == [world.b.pk]


@pytest.mark.parametrize(
    ("role", "visible"),
    [
        ("rater_a", True),
        ("rater_b", False),
        ("owner", True),
        ("adjudicator", True),
        ("staff", True),
        ("outsider", False),
    ],
)
def test_who_may_read_rater_a_annotation(world, users, outsider, role, visible):
    user = outsider if role == "outsider" else users[role]
    if visible:
        assert annotation_get_for_user(user=user, pk=world.a.annotation.pk).pk == world.a.annotation.pk
    else:
        with pytest.raises(Http404):
            annotation_get_for_user(user=user, pk=world.a.annotation.pk)


def test_non_members_do_not_see_the_study(world, outsider, users):
    assert not studies_visible_to(user=outsider).exists()
    with pytest.raises(Http404):
        study_get_for_user(user=outsider, pk=world.study.pk)
    assert studies_visible_to(user=users["staff"]).filter(pk=world.study.pk).exists()


def test_the_study_list_shows_my_progress_not_the_other_raters(world, users):
    annotation_submit(
        annotation=world.b.annotation, actor=users["rater_b"], data=complete_input(world), expected_version=1
    )
    (row,) = study_list_rows(user=users["rater_a"])
    assert row["roles"] == ["rater"] and row["progress"]["done"] == 0


def test_the_dashboard_counts_progress_completion_time_and_proposals(world, users):
    proposal = complete_input(world, proposals={"stage": "Checkpoint resharding"})
    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=proposal, expected_version=1, elapsed_seconds=60
    )
    annotation_submit(
        annotation=world.b.annotation, actor=users["rater_b"], data=proposal, expected_version=1, elapsed_seconds=120
    )
    second_a = world.assignments["rater_a"][1]
    annotation_save_draft(
        annotation=second_a.annotation, actor=users["rater_a"], data=AnnotationInput(), expected_version=1
    )
    dashboard = study_dashboard(study=world.study)
    rows = {row["rater__username"]: row for row in dashboard["per_rater"]}
    assert (rows["rater_a"]["submitted"], rows["rater_a"]["drafted"], rows["rater_a"]["assigned"]) == (1, 1, 3)
    assert rows["rater_b"]["submitted"] == 1
    assert dashboard["issues_complete"] == 1 and dashboard["issues_total"] == 5
    assert dashboard["median_seconds"] == 90
    assert dashboard["proposals"] == [{"dimension": "stage", "text": "Checkpoint resharding", "count": 2}]
    assert sum(row["submitted"] for row in dashboard["throughput"]) == 2
    assert Assignment.objects.filter(status="submitted").count() == 2
