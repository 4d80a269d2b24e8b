"""Resolutions: automatic comparison on the last submit, the adjudicator's decision, sending back."""

import pytest

from annotator.models import Annotation, AnnotationHistory, Assignment, Resolution, ResolutionHistory, StudyIssue
from annotator.services.resolutions import (
    RaterLabels,
    compare_labels,
    resolution_record,
    resolution_send_back,
    resolutions_ensure,
    study_set_anonymous_adjudication,
)
from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labels, submit

pytestmark = pytest.mark.django_db

EXCLUDE = {"excluded": True, "excluded_reason": "not_a_bug"}


def decide(world, users, study_issue, *, role="adjudicator", root_cause=1, **overrides):
    resolution = Resolution.objects.get(study_issue=study_issue)
    kwargs = {
        "study_issue": study_issue,
        "actor": users[role],
        "values": {"root_cause": [world.cats["root_cause"][root_cause].pk]},
        "method": Resolution.Method.ADJUDICATED,
        "reason": Resolution.Reason.GUIDELINE_GAP,
        "note": "B read the stack trace right.",
        "expected_version": resolution.version,
    }
    kwargs.update(overrides)
    return resolution_record(**kwargs)


# --- the pure comparison --------------------------------------------------------------------------------


def test_comparison_agrees_on_equal_sets_and_queues_the_rest():
    a = RaterLabels(values={"s": [1], "r": [2], "t": [5, 4]}, proposals={}, excluded=False)
    b = RaterLabels(values={"s": [1], "r": [3], "t": [4, 5]}, proposals={}, excluded=False)
    result = compare_labels([a, b], dimension_keys=["s", "r", "t"])
    assert result.agreed == {"s": [1], "t": [4, 5]}
    assert result.disagreements == ["r"]


def test_comparison_of_two_empty_labels_with_different_proposals_is_a_disagreement():
    a = RaterLabels(values={}, proposals={"r": "NCCL timeout"}, excluded=False)
    b = RaterLabels(values={}, proposals={"r": "  nccl   TIMEOUT "}, excluded=False)
    c = RaterLabels(values={}, proposals={"r": "ZeRO bug"}, excluded=False)
    assert compare_labels([a, b], dimension_keys=["r"]).agreed == {"r": []}
    assert compare_labels([a, c], dimension_keys=["r"]).disagreements == ["r"]


def test_comparison_of_one_exclusion_is_its_own_disagreement_and_of_two_is_excluded():
    labelled = RaterLabels(values={"r": [2]}, proposals={}, excluded=False)
    excluded = RaterLabels(values={}, proposals={}, excluded=True)
    one = compare_labels([labelled, excluded], dimension_keys=["r"])
    assert one.disagreements == ["excluded", "r"] and not one.all_excluded
    both = compare_labels([excluded, excluded], dimension_keys=["r"])
    assert both.all_excluded and both.disagreements == []


# --- automatic resolution on the last submit ------------------------------------------------------------


def test_nothing_is_resolved_until_the_last_rater_submits(world, users):
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    assert not Resolution.objects.exists()


def test_full_agreement_is_resolved_unanimously_by_nobody(world, users):
    submit(world, users, "rater_a", 0, **labels(world, 0, 2, stage=[0, 1]))
    submit(world, users, "rater_b", 0, **labels(world, 0, 2, stage=[1, 0]))
    resolution = Resolution.objects.get(study_issue_id=world.issue_ids[0])
    cats = world.cats
    assert resolution.status == Resolution.Status.RESOLVED
    assert resolution.method == Resolution.Method.UNANIMOUS
    assert resolution.decided_by is None
    assert values_of(resolution) == {
        "root_cause": [cats["root_cause"][2].pk],
        "stage": sorted([cats["stage"][0].pk, cats["stage"][1].pk]),
        "symptom": [cats["symptom"][0].pk],
    }
    assert set(resolution.methods.values()) == {"unanimous"}
    assert ResolutionHistory.objects.get(resolution=resolution).action == ResolutionHistory.Action.AUTO


def test_a_disagreement_decides_the_agreed_dimensions_and_queues_the_other(world, users, disputed):
    resolution = disputed.resolution
    assert resolution.status == Resolution.Status.PENDING
    assert resolution.disagreements == ["root_cause"]
    assert resolution.disagreement_count == 1
    assert values_of(resolution) == {"stage": [], "symptom": [world.cats["symptom"][0].pk]}
    assert resolution.method == ""
    assert Annotation.objects.filter(assignment__study_issue=disputed, frozen=True).count() == 2


def test_both_raters_excluding_resolves_the_issue_as_excluded(world, users):
    submit(world, users, "rater_a", 0, **EXCLUDE)
    submit(world, users, "rater_b", 0, excluded=True, excluded_reason="out_of_scope")
    resolution = Resolution.objects.get(study_issue_id=world.issue_ids[0])
    assert (resolution.status, resolution.excluded, values_of(resolution)) == ("resolved", True, {})
    assert resolution.method == Resolution.Method.UNANIMOUS


def test_one_rater_excluding_is_a_disagreement(world, users):
    submit(world, users, "rater_a", 0, **EXCLUDE)
    submit(world, users, "rater_b", 0, **labels(world, 0, 0))
    resolution = Resolution.objects.get(study_issue_id=world.issue_ids[0])
    assert resolution.status == Resolution.Status.PENDING
    assert resolution.disagreements[0] == "excluded"
    assert {"symptom", "root_cause"} <= set(resolution.disagreements)


# --- recording ------------------------------------------------------------------------------------------


def test_the_adjudicator_records_the_disputed_dimension(world, users, disputed):
    resolution = decide(world, users, disputed)
    assert resolution.status == Resolution.Status.RESOLVED
    assert values_of(resolution)["root_cause"] == [world.cats["root_cause"][1].pk]
    assert resolution.methods == {"root_cause": "adjudicated", "stage": "unanimous", "symptom": "unanimous"}
    assert resolution.method == Resolution.Method.ADJUDICATED
    assert resolution.disagreement_reason == "guideline_gap"
    assert resolution.decided_by == users["adjudicator"]
    assert resolution.version == 2
    entry = ResolutionHistory.objects.filter(resolution=resolution).latest("id")
    assert entry.action == ResolutionHistory.Action.RECORD
    assert entry.actor == users["adjudicator"]
    assert "root_cause" not in entry.before["values"] and entry.after["values"]["root_cause"]


def test_revising_a_resolution_is_recorded_as_a_revision(world, users, disputed):
    decide(world, users, disputed)
    resolution = decide(world, users, disputed, role="owner", root_cause=0, method="negotiated")
    assert values_of(resolution)["root_cause"] == [world.cats["root_cause"][0].pk]
    assert resolution.method == "negotiated"
    actions = list(ResolutionHistory.objects.filter(resolution=resolution).values_list("action", flat=True))
    assert actions == ["auto", "record", "revise"]


def test_the_database_refuses_to_change_an_entry_of_a_decisions_history(world, users, disputed):
    from django.db import IntegrityError, transaction

    resolution = decide(world, users, disputed)
    entry = ResolutionHistory.objects.filter(resolution=resolution).latest("id")
    with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
        ResolutionHistory.objects.filter(pk=entry.pk).update(after={"values": {}}, actor=users["owner"])
    unchanged = ResolutionHistory.objects.get(pk=entry.pk)
    assert (unchanged.after, unchanged.actor_id) == (entry.after, users["adjudicator"].pk)


def test_a_disputed_dimension_must_be_decided(world, users, disputed):
    with pytest.raises(DomainError, match="Choose the final category for Root Cause"):
        decide(world, users, disputed, values={})
    assert Resolution.objects.get(study_issue=disputed).status == Resolution.Status.PENDING


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"method": "unanimous"}, "Say how the label was reached"),
        ({"reason": ""}, "Say why the raters differed"),
        ({"values": {"color": [1]}}, "does not label the dimension"),
    ],
)
def test_a_decision_needs_a_method_a_reason_and_known_dimensions(world, users, disputed, overrides, message):
    with pytest.raises(DomainError, match=message):
        decide(world, users, disputed, **overrides)
    assert Resolution.objects.get(study_issue=disputed).version == 1


def test_a_category_of_another_dimension_or_a_group_is_refused(world, users, disputed):
    with pytest.raises(DomainError, match="is not a category of"):
        decide(world, users, disputed, values={"root_cause": [world.cats["symptom"][0].pk]})
    with pytest.raises(DomainError, match="groups other categories"):
        decide(world, users, disputed, values={"root_cause": [world.taxonomy["groups"]["root_cause"].pk]})


def test_a_single_valued_dimension_takes_one_category(world, users, disputed):
    two = [world.cats["root_cause"][0].pk, world.cats["root_cause"][1].pk]
    with pytest.raises(DomainError, match="takes a single category"):
        decide(world, users, disputed, values={"root_cause": two})


def test_excluding_the_issue_needs_no_categories(world, users, disputed):
    resolution = decide(world, users, disputed, values={}, excluded=True)
    assert (resolution.excluded, values_of(resolution), resolution.status) == (True, {}, "resolved")
    assert resolution.methods == {"excluded": "adjudicated"}


def test_a_stale_version_is_a_conflict_and_changes_nothing(world, users, disputed):
    decide(world, users, disputed)
    before = Resolution.objects.filter(study_issue=disputed).values().get()
    with pytest.raises(ConflictError, match="Someone else changed this resolution"):
        decide(world, users, disputed, role="owner", root_cause=0, expected_version=1)
    assert Resolution.objects.filter(study_issue=disputed).values().get() == before


@pytest.mark.parametrize("role", ["rater_a", "rater_b"])
def test_raters_cannot_resolve(world, users, disputed, role):
    with pytest.raises(PermissionDeniedError):
        decide(world, users, disputed, role=role)
    assert Resolution.objects.get(study_issue=disputed).version == 1


def test_an_adjudicator_who_rated_the_issue_cannot_settle_it(world, users, disputed):
    from annotator.models import StudyMember

    StudyMember.objects.create(study=world.study, user=users["rater_a"], role=StudyMember.Role.ADJUDICATOR)
    with pytest.raises(PermissionDeniedError, match="labelled this issue yourself"):
        decide(world, users, disputed, role="rater_a")


def test_nothing_to_resolve_before_both_submit(world, users):
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    study_issue = StudyIssue.objects.get(pk=world.issue_ids[0])
    with pytest.raises(NotFoundError, match="every rater of this issue must submit"):
        resolution_record(
            study_issue=study_issue,
            actor=users["adjudicator"],
            values={},
            method="adjudicated",
            reason="other",
            expected_version=1,
        )


# --- sending back ---------------------------------------------------------------------------------------


def test_sending_back_reopens_both_annotations_and_is_in_the_history(world, users, disputed):
    resolution = resolution_send_back(
        study_issue=disputed, actor=users["adjudicator"], note="Discuss the root cause.", expected_version=1
    )
    assert resolution.status == Resolution.Status.SENT_BACK
    annotations = Annotation.objects.filter(assignment__study_issue=disputed)
    assert not annotations.filter(frozen=True).exists()
    assert set(annotations.values_list("assignment__status", flat=True)) == {Assignment.Status.DRAFTED}
    reopen = AnnotationHistory.objects.filter(annotation__in=annotations, action="reopen")
    assert reopen.count() == 2
    assert {entry.actor for entry in reopen} == {users["adjudicator"]}
    assert ResolutionHistory.objects.filter(resolution=resolution).latest("id").action == "send_back"


def test_after_discussion_agreement_is_negotiated(world, users, disputed):
    resolution_send_back(study_issue=disputed, actor=users["adjudicator"], note="Discuss.", expected_version=1)
    with pytest.raises(ConflictError, match="back with its raters"):
        decide(world, users, disputed, expected_version=2)
    submit(world, users, "rater_a", 0, **labels(world, 0, 1))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    resolution = Resolution.objects.get(study_issue=disputed)
    assert resolution.status == Resolution.Status.RESOLVED
    assert resolution.methods["root_cause"] == "negotiated"
    assert resolution.methods["symptom"] == "unanimous"
    assert resolution.method == "negotiated"


def test_send_back_needs_a_note(world, users, disputed):
    with pytest.raises(DomainError, match="what to discuss"):
        resolution_send_back(study_issue=disputed, actor=users["adjudicator"], note=" ", expected_version=1)
    assert Annotation.objects.filter(assignment__study_issue=disputed, frozen=True).count() == 2


# --- backfill and options -------------------------------------------------------------------------------


def test_resolutions_are_created_for_issues_frozen_without_one(world, users, disputed):
    ResolutionHistory.objects.all().delete()
    Resolution.objects.all().delete()
    assert resolutions_ensure(study=world.study) == 1
    assert resolutions_ensure(study=world.study) == 0
    assert Resolution.objects.get(study_issue=disputed).disagreements == ["root_cause"]


def test_only_owners_switch_anonymous_adjudication(world, users):
    with pytest.raises(PermissionDeniedError):
        study_set_anonymous_adjudication(study=world.study, actor=users["adjudicator"], anonymous=True)
    world.study.refresh_from_db()
    assert world.study.anonymous_adjudication is False
    study_set_anonymous_adjudication(study=world.study, actor=users["owner"], anonymous=True)
    world.study.refresh_from_db()
    assert world.study.anonymous_adjudication is True
