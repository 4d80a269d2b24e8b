"""Carrying the final labels (resolutions) to the new version, and sending those that need a person back to
adjudication through the resolution service (`resolution_reset`)."""

from annotator.models import Resolution, ResolutionHistory, StudyVersionMove
from annotator.services.resolutions import resolution_reset
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services.operations import CategoryFate

from .labels import RELABEL, _needs_reset, _stale


def _map_ids(ids: list, fates: dict[int, CategoryFate]) -> tuple[list[int], bool]:
    """New category ids for a resolution's ids, and whether any needs a person (split/deprecated)."""
    mapped, relabel = [], False
    for category_id in ids:
        fate = fates[int(category_id)]
        relabel = relabel or fate.kind in RELABEL
        if fate.new_category is not None and fate.new_category not in mapped:
            mapped.append(fate.new_category)
    return sorted(mapped), relabel


def _move_resolutions(
    resolutions: list[Resolution], fates, actor, move: StudyVersionMove, note: str
) -> tuple[dict[int, dict[str, list[int]]], dict[str, int]]:
    """Map resolution values to the new version; returns, per resolution, the split or deprecated categories
    it used (by dimension; the values now point to their deprecated copies) and the counts."""
    changed, readjudicate = 0, 0
    history = []
    stale: dict[int, dict[str, list[int]]] = {}
    for resolution in resolutions:
        if not resolution.values:
            continue
        old = resolution.values
        stale[resolution.pk] = _stale(old, fates)
        new, needs_person = {}, False
        for key, ids in old.items():
            new[key], relabel = _map_ids(ids, fates)
            needs_person = needs_person or relabel
        move.before["resolutions"][str(resolution.pk)] = old
        resolution.values = new
        resolution.version += 1
        resolution.save(update_fields=["values", "version"])
        changed += 1
        readjudicate += needs_person
        history.append(
            ResolutionHistory(
                resolution=resolution,
                actor=actor,
                action=ResolutionHistory.Action.REVISE,
                version=resolution.version,
                before={"values": old},
                after={"values": new, "reason": note, "needs_readjudication": needs_person},
            )
        )
    ResolutionHistory.objects.bulk_create(history, batch_size=1000)
    return stale, {"resolutions_carried": changed, "resolutions_to_readjudicate": readjudicate}


def _reset_resolutions(
    resolutions: list[Resolution],
    stale: dict[int, dict[str, list[int]]],
    rater_stale: dict[int, set[int]],
    *,
    fates: dict[int, CategoryFate],
    actor,
    to_version: TaxonomyVersion,
) -> int:
    """Send the final labels that need a person back to adjudication (the old decision stays in the history)."""
    chosen = [r for r in resolutions if _needs_reset(r.status, stale.get(r.pk, {}), r.study_issue_id in rater_stale)]
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
