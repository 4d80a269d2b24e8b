"""Carrying the final labels (resolutions) to the new version, and sending those that need a person back to
adjudication through the resolution service (`resolution_reset`)."""

from annotator.models import ProposalDecision, Resolution, ResolutionHistory, ResolutionValue, Study, StudyVersionMove
from annotator.selectors.cardsort import proposal_key
from annotator.selectors.resolution_values import (
    Labels,
    ProposedLabel,
    category_ids,
    final_labels_by_resolution,
    proposals_of,
    sort_labels,
)
from annotator.services.resolutions import resolution_reset
from annotator.services.resolutions.rows import version_dimension_ids
from annotator.services.resolutions.values import value_rows
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services.operations import CategoryFate

from .labels import RELABEL, final_label_needs_reset, stale_categories


def _map_ids(ids: list, fates: dict[int, CategoryFate]) -> tuple[list[int], bool]:
    """New category ids for a resolution's ids, and whether any needs a person (split/deprecated)."""
    mapped, relabel = [], False
    for category_id in ids:
        fate = fates[int(category_id)]
        relabel = relabel or fate.kind in RELABEL
        if fate.new_category is not None and fate.new_category not in mapped:
            mapped.append(fate.new_category)
    return sorted(mapped), relabel


def sorted_proposal_categories(*, study: Study, to_version: TaxonomyVersion) -> dict[tuple[str, str], int]:
    """{(dimension key, normalised proposal): category id in `to_version`} for every card the board sorted into a
    category (a new one, or an alias of an existing one) and applied to a draft that became that category."""
    found = {}
    for decision in ProposalDecision.objects.filter(study=study, applied_to__isnull=False).exclude(
        action=ProposalDecision.Action.REJECT
    ):
        in_version = Category.objects.filter(
            dimension__version=to_version, dimension__key=decision.dimension_key, deprecated=False
        )
        if decision.action == ProposalDecision.Action.ALIAS:
            category = in_version.filter(lineage_id=decision.target_lineage_id).first()
        else:
            category = in_version.filter(name__iexact=decision.new_category_name).first()
        if category is not None and category.selectable:
            found[(decision.dimension_key, decision.proposal)] = category.pk
    return found


def final_label_rows(*, study: Study) -> list[tuple[int, str, dict[str, list[int]]]]:
    """(study issue, status, {dimension key: [category ids]}) of every resolution of the study, for the preview."""
    resolutions = list(
        Resolution.objects.filter(study_issue__study=study).values_list(
            "pk", "study_issue_id", "status", "methods", "excluded"
        )
    )
    labels = final_labels_by_resolution((pk, methods, excluded) for pk, _si, _status, methods, excluded in resolutions)
    return [(si, status, category_ids(labels[pk])) for pk, si, status, _methods, _excluded in resolutions]


def final_label_proposals_preview(*, study: Study, to_version: TaxonomyVersion) -> dict[str, int]:
    """How many proposal-valued final labels a move to `to_version` turns into categories, and how many stay
    proposals (not sorted on the card board, or not into a category of that version)."""
    targets = sorted_proposal_categories(study=study, to_version=to_version)
    rows = ResolutionValue.objects.filter(resolution__study_issue__study=study, category__isnull=True).values_list(
        "dimension__key", "proposal"
    )
    counts = {"final_proposals_to_category": 0, "final_proposals_kept": 0}
    for key, text in rows:
        hit = (key, proposal_key(text) or "") in targets
        counts["final_proposals_to_category" if hit else "final_proposals_kept"] += 1
    return counts


def _carry(labels: Labels, fates, targets: dict[tuple[str, str], int]) -> tuple[Labels, bool, list[str]]:
    """The labels under the new version, whether any needs a person, and the dimensions whose proposal became
    a category."""
    new: Labels = {}
    needs_person, from_proposal = False, []
    for key, values in labels.items():
        mapped, relabel = _map_ids([v for v in values if isinstance(v, int)], fates)
        needs_person = needs_person or relabel
        carried: list = list(mapped)
        for value in values:
            if isinstance(value, ProposedLabel):
                target = targets.get((key, proposal_key(value.text) or ""))
                if target is None:
                    carried.append(value)
                else:
                    carried.append(target)
                    from_proposal.append(key)
        new[key] = sort_labels(carried)
    return new, needs_person, from_proposal


def _snapshot_labels(labels: Labels) -> dict:
    proposals = proposals_of(labels)
    snapshot: dict = {"values": category_ids(labels)}
    if proposals:
        snapshot["proposals"] = {key: {"text": p.text, "annotation": p.annotation_id} for key, p in proposals.items()}
    return snapshot


def final_labels_move(
    resolutions: list[Resolution], fates, actor, move: StudyVersionMove, note: str
) -> tuple[dict[int, dict[str, list[int]]], dict[str, int]]:
    """Map resolution values to the new version; returns, per resolution, the split or deprecated categories
    it used (by dimension; the values now point to their deprecated copies) and the counts.

    A final label the adjudicator settled on a rater's proposal becomes the category the card board sorted that
    proposal into, when `move.to_version` has it; otherwise it stays the proposal (under the new dimension).
    """
    changed, readjudicate, from_proposals = 0, 0, 0
    history, rows = [], []
    stale: dict[int, dict[str, list[int]]] = {}
    current = final_labels_by_resolution((r.pk, r.methods, r.excluded) for r in resolutions)
    targets = sorted_proposal_categories(study=move.study, to_version=move.to_version)
    dimension_ids = version_dimension_ids(move.to_version_id)
    carried = []
    for resolution in resolutions:
        old = current[resolution.pk]
        if not old:
            continue
        stale[resolution.pk] = stale_categories(category_ids(old), fates)
        new, needs_person, from_proposal = _carry(old, fates, targets)
        move.before["resolutions"][str(resolution.pk)] = category_ids(old)
        rows += value_rows(resolution, new, dimension_ids=dimension_ids)
        resolution.version += 1
        resolution.save(update_fields=["version"])
        carried.append(resolution.pk)
        changed += 1
        readjudicate += needs_person
        from_proposals += len(from_proposal)
        history.append(
            ResolutionHistory(
                resolution=resolution,
                actor=actor,
                action=ResolutionHistory.Action.REVISE,
                version=resolution.version,
                before=_snapshot_labels(old),
                after={
                    **_snapshot_labels(new),
                    "reason": note,
                    "needs_readjudication": needs_person,
                    **({"from_proposal": from_proposal} if from_proposal else {}),
                },
            )
        )
    ResolutionValue.objects.filter(resolution_id__in=carried).delete()
    ResolutionValue.objects.bulk_create(rows, batch_size=1000)
    ResolutionHistory.objects.bulk_create(history, batch_size=1000)
    counts = {
        "resolutions_carried": changed,
        "resolutions_to_readjudicate": readjudicate,
        "final_proposals_to_category": from_proposals,
    }
    return stale, counts


def final_labels_reset(
    resolutions: list[Resolution],
    stale: dict[int, dict[str, list[int]]],
    rater_stale: dict[int, set[int]],
    *,
    fates: dict[int, CategoryFate],
    actor,
    to_version: TaxonomyVersion,
) -> int:
    """Send the final labels that need a person back to adjudication (the old decision stays in the history)."""
    chosen = [
        r
        for r in resolutions
        if final_label_needs_reset(r.status, stale.get(r.pk, {}), r.study_issue_id in rater_stale)
    ]
    decided_stale = {r.pk: [pk for ids in stale.get(r.pk, {}).values() for pk in ids] for r in chosen}
    wanted = {pk for ids in decided_stale.values() for pk in ids} | {pk for ids in rater_stale.values() for pk in ids}
    names = dict(Category.objects.filter(pk__in=wanted).values_list("pk", "name"))

    def said(category_ids) -> str:
        return "; ".join(
            f"category '{names[pk]}' was {fates[pk].kind} in v{to_version.number}" for pk in dict.fromkeys(category_ids)
        )

    for resolution in chosen:
        reopened = resolution.study_issue_id in rater_stale
        if reopened:
            reason = (
                f"{said([*decided_stale[resolution.pk], *sorted(rater_stale[resolution.study_issue_id])])}; "
                "the raters' annotations were reopened: re-adjudicate once they have re-labelled the issue."
            )
        else:
            reason = f"{said(decided_stale[resolution.pk])}; re-adjudicate."
        resolution_reset(
            study_issue=resolution.study_issue,
            actor=actor,
            reason=reason[:1].upper() + reason[1:],
            expected_version=resolution.version,
            undecided=list(stale.get(resolution.pk, {})),
        )
    return len(chosen)
