"""Two adjudicators resolving the same issue at once: one resolution, and a clear message for the other."""

import pytest

from annotator.models import Resolution, ResolutionHistory, StudyIssue
from annotator.services.resolutions import resolution_record
from core.errors import ConflictError
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labels, make_world, submit
from tests.concurrency import raised, run_together
from tests.factories import UserFactory


def _second_adjudicator(world):
    from annotator.models import StudyMember

    other = UserFactory(username="adjudicator_2")
    StudyMember.objects.create(study=world.study, user=other, role=StudyMember.Role.ADJUDICATOR)
    return other


def _decide(world, study_issue, actor, index):
    return lambda: resolution_record(
        study_issue=study_issue,
        actor=actor,
        values={"root_cause": [world.cats["root_cause"][index].pk]},
        method="adjudicated",
        reason="other",
        note=f"decided by {actor.username}",
        expected_version=1,
    )


def _disputed(world, users) -> StudyIssue:
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    return StudyIssue.objects.get(pk=world.issue_ids[0])


@pytest.mark.django_db
def test_the_second_of_two_decisions_on_the_same_version_is_refused_with_a_message(users, outsider):
    world = make_world(users, n_issues=1)
    study_issue = _disputed(world, users)
    other = _second_adjudicator(world)
    _decide(world, study_issue, users["adjudicator"], 0)()
    with pytest.raises(ConflictError) as excinfo:
        _decide(world, study_issue, other, 1)()
    assert "reload the page" in excinfo.value.message and "adjudicator" in excinfo.value.message
    resolution = Resolution.objects.get(study_issue=study_issue)
    assert values_of(resolution)["root_cause"] == [world.cats["root_cause"][0].pk]
    assert ResolutionHistory.objects.filter(resolution=resolution, action="record").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_adjudicators_at_once_leave_one_resolution(users, outsider):
    world = make_world(users, n_issues=1)
    study_issue = _disputed(world, users)
    other = _second_adjudicator(world)
    outcomes = run_together(_decide(world, study_issue, users["adjudicator"], 0), _decide(world, study_issue, other, 1))
    assert [type(error).__name__ for error in raised(outcomes)] == ["ConflictError"], outcomes
    resolution = Resolution.objects.get(study_issue=study_issue)
    assert resolution.version == 2
    winner = other if isinstance(outcomes[0], Exception) else users["adjudicator"]
    assert resolution.decided_by == winner
    assert ResolutionHistory.objects.filter(resolution=resolution, action="record").count() == 1
