"""A rater removed from a study, or moved to another role, keeps the work done but writes no more, on any surface.

The pages refuse them (annotator.views.labelling); the services refuse them too, so the API and any later caller do.
"""

import pytest
from rest_framework.test import APIClient

from annotator.models import Annotation, AnnotationHistory, Assignment, FirstSubmission, StudyMember
from annotator.services.annotations import AnnotationInput, annotation_save_draft
from annotator.services.assignments import assignment_skip, assignment_unskip
from annotator.services.studies import study_member_add, study_member_remove, study_member_set_role
from core.errors import NotFoundError, PermissionDeniedError
from tests.annotator.worlds import build_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(users):
    return build_world(users)


def _leave(world, users, how: str) -> None:
    member = StudyMember.objects.get(study=world.study, user=users["rater_a"], role=StudyMember.Role.RATER)
    if how == "removed":
        study_member_remove(study=world.study, actor=users["owner"], member=member)
    else:
        study_member_set_role(study=world.study, actor=users["owner"], member=member, role=StudyMember.Role.OWNER)


def _body(world, version: int) -> dict:
    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]}
    return {"values": values, "note": "after leaving", "version": version}


# Removed: the study is no longer theirs to see (404). Made an owner: they see it, but as an owner (403).
EXPECTED = {"removed": 404, "now_owner": 403}


@pytest.mark.parametrize("how", ["removed", "now_owner"])
@pytest.mark.parametrize(("method", "suffix"), [("put", "draft/"), ("post", "submit/")])
def test_a_former_rater_writes_no_labels_through_the_api(world, users, how, method, suffix):
    _leave(world, users, how)
    api = APIClient()
    api.force_authenticate(users["rater_a"])

    response = getattr(api, method)(
        f"/api/v1/annotations/{world.a.annotation.pk}/{suffix}", _body(world, 1), format="json"
    )

    assert response.status_code == EXPECTED[how], response.content
    assert "error" in response.json()
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    assert (annotation.version, annotation.note, annotation.submitted_at) == (1, "", None)
    assert not AnnotationHistory.objects.filter(annotation=annotation).exists()
    assert not FirstSubmission.objects.filter(annotation=annotation).exists()


@pytest.mark.parametrize("how", ["removed", "now_owner"])
def test_a_former_rater_can_neither_skip_nor_unskip(world, users, how):
    assignment_skip(assignment=world.a, actor=users["rater_a"], reason="unclear")
    _leave(world, users, how)
    error = NotFoundError if how == "removed" else PermissionDeniedError

    with pytest.raises(error):
        assignment_unskip(assignment=world.a, actor=users["rater_a"])
    with pytest.raises(error):
        assignment_skip(assignment=world.assignments["rater_a"][1], actor=users["rater_a"], reason="again")

    assert Assignment.objects.get(pk=world.a.pk).status == Assignment.Status.SKIPPED
    assert Assignment.objects.get(pk=world.assignments["rater_a"][1].pk).status == Assignment.Status.ASSIGNED


def test_work_done_before_leaving_is_kept(world, users):
    saved = annotation_save_draft(
        annotation=world.a.annotation, actor=users["rater_a"], data=AnnotationInput(note="kept"), expected_version=1
    )
    _leave(world, users, "removed")

    assert Annotation.objects.get(pk=saved.pk).note == "kept"
    assert AnnotationHistory.objects.filter(annotation=saved).count() == 1


def test_another_rater_may_not_skip_my_issue_and_does_not_learn_it_exists(world, users):
    with pytest.raises(NotFoundError):
        assignment_skip(assignment=world.a, actor=users["rater_b"], reason="not mine")
    with pytest.raises(PermissionDeniedError):
        assignment_skip(assignment=world.a, actor=users["owner"], reason="the owner is not its rater")
    assert Assignment.objects.get(pk=world.a.pk).status == Assignment.Status.ASSIGNED


def test_a_rater_back_in_the_study_writes_again(world, users):
    _leave(world, users, "removed")
    study_member_add(study=world.study, actor=users["owner"], user=users["rater_a"], role=StudyMember.Role.RATER)

    saved = annotation_save_draft(
        annotation=world.a.annotation, actor=users["rater_a"], data=AnnotationInput(note="back"), expected_version=1
    )

    assert saved.note == "back"


def test_a_former_rater_still_in_the_study_is_offered_nothing_to_label(world, users):
    api = APIClient()
    api.force_authenticate(users["rater_a"])
    url = f"/api/v1/studies/{world.study.pk}/assignments/next/"
    assert api.get(url).json()["assignment"]["annotation"] == world.a.annotation.pk
    _leave(world, users, "now_owner")

    assert api.get(url).json()["assignment"] is None
