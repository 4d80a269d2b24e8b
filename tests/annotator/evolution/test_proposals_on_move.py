"""Open coding closes the loop: on a move, a sorted proposal becomes its category on the proposing rater's
annotation ("from proposal"), every other proposal queues its annotation for re-labelling, and the move does
exactly what the preview said. First submissions stay as they were."""

import pytest
from django.urls import reverse

from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    FirstSubmission,
    FirstSubmissionValue,
    Resolution,
)
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.cardsort import cardsort_apply, proposal_decide
from annotator.services.migration import study_version_move, study_version_preview
from core.errors import DomainError
from taxonomy.models import Category
from taxonomy.services.operations import (
    categories_merge,
    category_add,
    category_split,
    version_draft_from,
    version_publish_with_changelog,
)

# The proposing world: on issue i both raters proposed "NCCL timeout {i % 2}" for the stage (multi-valued),
# five issues: card 0 on issues 0, 2, 4 (6 annotations), card 1 on issues 1, 3 (4 annotations). Rater A also
# chose stage leaves 0 and 1 on every issue, rater B no stage.
CARD_0, CARD_1 = "NCCL timeout 0", "NCCL timeout 1"


def decide(world, owner, card: str, action: str, **extra) -> None:
    proposal_decide(study=world.study, actor=owner, dimension_key="stage", proposals=[card], action=action, **extra)


def in_draft(draft, category) -> Category:
    return Category.objects.get(dimension__version=draft, lineage_id=category.lineage_id)


def next_version(world, owner, *, apply: bool = True, edit=None):
    """Publish v2: the card sort applied (when asked and there is something to apply), then `edit(draft)`."""
    v1 = world.study.taxonomy_version
    draft = cardsort_apply(study=world.study, actor=owner) if apply else version_draft_from(version=v1, actor=owner)
    if edit is not None:
        edit(draft)
    else:  # something changes in every v2, so that it is a new version
        category_add(version=draft, actor=owner, dimension_key="symptom", name="unrelated symptom")
    return version_publish_with_changelog(version=draft, actor=owner)


def first_submissions(study):
    return (
        sorted(
            FirstSubmission.objects.filter(study_issue__study=study).values_list("pk", "annotation_id", "proposals")
        ),
        sorted(FirstSubmissionValue.objects.values_list("first_submission_id", "category_id")),
    )


def still_proposing(study) -> set[int]:
    return set(
        Annotation.objects.filter(assignment__study_issue__study=study)
        .exclude(proposals={})
        .values_list("pk", flat=True)
    )


def test_sorted_proposals_become_labels_and_the_others_are_queued(proposing_world, users):
    world, owner = proposing_world, users["owner"]
    decide(world, owner, CARD_0, "new", new_category_name="collective timeout")
    v2 = next_version(world, owner)
    kept = first_submissions(world.study)
    preview = study_version_preview(study=world.study, to_version=v2)
    assert (preview.labels_from_proposals, preview.proposal_annotations_to_relabel) == (6, 4)
    assert preview.proposals_to_relabel == {"unsorted": 4} and preview.annotations_to_reopen == 4

    move = study_version_move(study=world.study, to_version=v2, actor=owner)

    assert (move.counts["from_proposals"], move.counts["proposals_to_relabel"], move.counts["reopened"]) == (6, 4, 4)
    new = Category.objects.get(dimension__version=v2, name="collective timeout")
    from_proposals = AnnotationValue.objects.exclude(from_proposal="")
    assert sorted(from_proposals.values_list("category_id", "from_proposal")) == [(new.pk, CARD_0)] * 6
    settled = set(from_proposals.values_list("annotation_id", flat=True))
    assert settled.isdisjoint(still_proposing(world.study))  # the proposal became the label
    entries = AnnotationHistory.objects.filter(action=AnnotationHistory.Action.FROM_PROPOSAL)
    assert set(entries.values_list("annotation_id", flat=True)) == settled
    entry = entries.first()
    assert entry.before["proposals"] == {"stage": CARD_0} and entry.after["proposals"] == {}
    assert entry.after["from_proposals"][0]["category"] == new.pk and new.pk in entry.after["values"]["stage"]
    # Card 1 was not sorted: its four annotations are back in their raters' queues, the proposal kept.
    queued = Annotation.objects.filter(pk__in=move.relabel_annotation_ids)
    assert queued.count() == 4 and all(a.proposals == {"stage": CARD_1} for a in queued)
    assert set(queued.values_list("assignment__status", flat=True)) == {Assignment.Status.DRAFTED}
    reopen = AnnotationHistory.objects.filter(annotation__in=queued, action=AnnotationHistory.Action.REOPEN).first()
    assert f"proposal '{CARD_1}' for Stage is not sorted on the card board yet" in reopen.after["reason"]
    assert first_submissions(world.study) == kept  # what raters first submitted is never rewritten


def test_a_reopened_rater_keeps_proposing_or_takes_the_new_category(proposing_world, users):
    world, owner = proposing_world, users["owner"]
    decide(world, owner, CARD_0, "new", new_category_name="collective timeout")
    move = study_version_move(study=world.study, to_version=next_version(world, owner), actor=owner)
    annotation = Annotation.objects.filter(pk__in=move.relabel_annotation_ids).order_by("pk").first()
    rater = annotation.assignment.rater
    values = {
        key: ids
        for key, ids in {
            "symptom": list(annotation.values.filter(dimension__key="symptom").values_list("category_id", flat=True)),
            "root_cause": list(
                annotation.values.filter(dimension__key="root_cause").values_list("category_id", flat=True)
            ),
        }.items()
        if ids
    }
    resubmitted = annotation_submit(
        annotation=annotation,
        actor=rater,
        data=AnnotationInput(values=values, proposals={"stage": CARD_1}),
        expected_version=annotation.version,
    )
    assert resubmitted.submitted_at is not None and resubmitted.proposals == {"stage": CARD_1}


def _alias_to_existing(world, owner):
    decide(world, owner, CARD_0, "alias", target_lineage_id=str(world.cats["stage"][0].lineage_id))
    decide(world, owner, CARD_1, "alias", target_lineage_id=str(world.cats["stage"][2].lineage_id))
    return next_version(world, owner)


def _rejected(world, owner):
    decide(world, owner, CARD_0, "reject", reason="an NCCL timeout is a symptom, not a stage")
    return next_version(world, owner, apply=False)


def _sorted_but_not_applied(world, owner):
    decide(world, owner, CARD_0, "new", new_category_name="collective timeout")
    return next_version(world, owner, apply=False)


def _aliased_then_merged(world, owner):
    decide(world, owner, CARD_0, "alias", target_lineage_id=str(world.cats["stage"][1].lineage_id))

    def merge(draft):
        categories_merge(
            categories=[in_draft(draft, world.cats["stage"][1]), in_draft(draft, world.cats["stage"][2])],
            actor=owner,
            name="late stages",
        )

    return next_version(world, owner, edit=merge)


def _aliased_then_split(world, owner):
    decide(world, owner, CARD_0, "alias", target_lineage_id=str(world.cats["stage"][2].lineage_id))

    def split(draft):
        category_split(
            category=in_draft(draft, world.cats["stage"][2]), actor=owner, parts=[{"name": "a"}, {"name": "b"}]
        )

    return next_version(world, owner, edit=split)


# scenario, (labels from proposals, of which new rows, annotations re-labelled for a proposal, why)
SCENARIOS = {
    # Rater A already holds stage leaf 0: card 0 settles there without a second row; B gets a new one.
    "alias to existing": (_alias_to_existing, (10, 7, 0, {})),
    "rejected": (_rejected, (0, 0, 10, {"rejected": 6, "unsorted": 4})),
    "sorted, not applied": (_sorted_but_not_applied, (0, 0, 10, {"absent": 6, "unsorted": 4})),
    # Stage leaf 1 merged with leaf 2: card 0 follows it into 'late stages', which A's label also became.
    "aliased, then merged": (_aliased_then_merged, (6, 3, 4, {"unsorted": 4})),
    "aliased, then split": (_aliased_then_split, (0, 0, 10, {"absent": 6, "unsorted": 4})),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_move_does_what_the_preview_said(proposing_world, users, scenario):
    world, owner = proposing_world, users["owner"]
    build, (from_proposals, new_rows, relabelled, why) = SCENARIOS[scenario]
    v2 = build(world, owner)
    labels_before = AnnotationValue.objects.count()
    kept = first_submissions(world.study)
    preview = study_version_preview(study=world.study, to_version=v2)
    assert (preview.labels_from_proposals, preview.proposal_annotations_to_relabel) == (from_proposals, relabelled)
    assert dict(preview.proposals_to_relabel) == why

    move = study_version_move(study=world.study, to_version=v2, actor=owner)

    assert move.counts["from_proposals"] == preview.labels_from_proposals
    assert move.counts["proposals_to_relabel"] == preview.proposal_annotations_to_relabel
    assert move.counts["reopened"] == preview.annotations_to_reopen
    assert move.counts["pending_relabel"] == preview.annotations_pending_relabel
    assert AnnotationValue.objects.exclude(from_proposal="").count() == new_rows
    assert AnnotationValue.objects.count() - labels_before == new_rows  # no label lost
    assert len(still_proposing(world.study)) == 10 - from_proposals
    reopened = Assignment.objects.filter(study_issue__study=world.study, status=Assignment.Status.DRAFTED)
    assert reopened.count() == preview.annotations_to_reopen
    assert first_submissions(world.study) == kept


def test_a_proposal_never_replaces_a_category_the_rater_chose_in_a_single_valued_dimension(world, users):
    """Labels from before the rule (category and proposal in one single-valued dimension) are left to the rater."""
    owner = users["owner"]
    both, only = world.assignments["rater_a"][0].annotation, world.assignments["rater_a"][1].annotation
    chosen = list(both.values.filter(dimension__key="symptom").values_list("category_id", flat=True))
    Annotation.objects.filter(pk__in=[both.pk, only.pk]).update(proposals={"symptom": "NCCL hang"})
    only.values.filter(dimension__key="symptom").delete()
    decide_symptom = {"dimension_key": "symptom", "proposals": ["nccl hang"], "action": "new"}
    proposal_decide(study=world.study, actor=owner, new_category_name="communication hang", **decide_symptom)
    v2 = next_version(world, owner)
    preview = study_version_preview(study=world.study, to_version=v2)
    assert (preview.labels_from_proposals, dict(preview.proposals_to_relabel)) == (1, {"conflict": 1})

    move = study_version_move(study=world.study, to_version=v2, actor=owner)

    hang = Category.objects.get(dimension__version=v2, name="communication hang")
    assert list(only.values.values_list("category_id", "from_proposal").filter(dimension__key="symptom")) == [
        (hang.pk, "NCCL hang")
    ]
    both.refresh_from_db()
    new_chosen = [move.mapping[str(pk)]["to"] for pk in chosen]
    assert list(both.values.filter(dimension__key="symptom").values_list("category_id", flat=True)) == new_chosen
    assert both.proposals == {"symptom": "NCCL hang"} and both.submitted_at is None  # the rater decides
    reason = both.history.filter(action=AnnotationHistory.Action.REOPEN).last().after["reason"]
    assert "you had chosen another one in this single-valued dimension" in reason
    # Back in the queue, the rater must choose: both together are refused with the dimension named.
    root_cause = list(both.values.filter(dimension__key="root_cause").values_list("category_id", flat=True))
    with pytest.raises(DomainError, match="'Symptom' takes a single category"):
        annotation_submit(
            annotation=both,
            actor=users["rater_a"],
            data=AnnotationInput(
                values={"symptom": new_chosen, "root_cause": root_cause},
                proposals={"symptom": "NCCL hang"},
            ),
            expected_version=both.version,
        )


def test_the_page_shows_both_counts_and_the_history_says_from_proposal(proposing_world, users, client_for):
    world, owner = proposing_world, users["owner"]
    decide(world, owner, CARD_0, "new", new_category_name="collective timeout")
    v2 = next_version(world, owner)
    client = client_for("owner")
    url = reverse("annotator:study_version", args=[world.study.pk])
    html = client.get(url, {"to": v2.pk}).content.decode()
    assert 'data-testid="n-from-proposals">6<' in html and 'data-testid="n-proposals-relabel">4<' in html
    assert "4 not sorted yet" in html
    assert not AnnotationValue.objects.exclude(from_proposal="").exists()  # a preview writes nothing
    response = client.post(url, {"to": v2.pk, "from": world.study.taxonomy_version_id}, follow=True)
    message = response.content.decode()
    assert "6 new from the raters&#x27; proposals" in message
    assert "4 annotations queued for re-labelling for their proposals" in message
    settled = AnnotationValue.objects.exclude(from_proposal="").select_related("annotation__assignment").first()
    history = client.get(
        reverse("annotator:study_issue_history", args=[world.study.pk, settled.annotation.assignment.study_issue_id])
    )
    assert "Labelled from a sorted proposal" in history.content.decode()


def test_a_decided_issue_reopened_for_a_proposal_goes_back_to_adjudication(proposing_world, users):
    from tests.annotator.evolution.test_move_resets_resolutions import decide as adjudicate
    from tests.annotator.evolution.test_move_resets_resolutions import resolution_of

    world, owner = proposing_world, users["owner"]
    adjudicate(world, users, 1, {"stage": [world.cats["stage"][0].pk]})  # issue 1: card 1, left unsorted
    decide(world, owner, CARD_0, "new", new_category_name="collective timeout")
    v2 = next_version(world, owner)
    preview = study_version_preview(study=world.study, to_version=v2)
    assert preview.resolutions_to_reset == 1

    move = study_version_move(study=world.study, to_version=v2, actor=owner)

    assert move.counts["resolutions_reset"] == preview.resolutions_to_reset
    resolution = resolution_of(world, 1)
    assert resolution.status == Resolution.Status.PENDING
    reason = resolution.history.order_by("-pk").first().after["reason"]
    assert reason.startswith("A rater's proposal was not turned into a category by the move")
