"""Raters see why an issue came back to them; fresh work shows no such notice and costs no query for it."""

import pytest

from annotator.models import Assignment, Resolution
from annotator.services.resolutions import resolution_send_back

pytestmark = pytest.mark.django_db


def label_url(assignment: Assignment) -> str:
    return f"/studies/{assignment.study_issue.study_id}/label/{assignment.pk}/"


def test_a_rater_sees_the_adjudicators_reason_after_a_send_back(world, users, disputed, client_as):
    resolution = Resolution.objects.get(study_issue=disputed)
    resolution_send_back(
        study_issue=disputed,
        actor=users["adjudicator"],
        note="Root cause unclear: discuss whether the launcher or NCCL is at fault.",
        expected_version=resolution.version,
    )
    assignment = Assignment.objects.get(study_issue=disputed, rater=users["rater_a"])
    response = client_as("rater_a").get(label_url(assignment))
    assert response.status_code == 200
    assert b"Sent back for discussion" in response.content
    assert b"whether the launcher or NCCL" in response.content


def test_fresh_work_shows_no_sent_back_notice(world, users, client_as):
    assignment = world.assignments["rater_a"][1]
    response = client_as("rater_a").get(label_url(assignment))
    assert response.status_code == 200
    assert b"Sent back for discussion" not in response.content
