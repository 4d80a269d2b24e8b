"""Moving the study and every rater label to a later version, in one transaction.

Renamed, moved and merged categories are carried in place; submitted annotations that used a split or
deprecated category are reopened, and the final labels that need a person go back to adjudication.
"""

from collections import Counter

from django.db import transaction
from django.db.models import F

from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Resolution,
    Study,
    StudyIssue,
    StudyVersionMove,
)
from annotator.permissions import can_manage_study
from annotator.selectors.studies import study_dimensions
from annotator.services.agreement.version import study_labels_changed
from annotator.services.annotations import annotation_reopen
from annotator.services.resolutions import resolution_reset
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.services.operations import version_category_map
from taxonomy.services.operations.mapping import KINDS

from .final_labels import final_labels_move, final_labels_reset
from .labels import RELABEL, study_rater_labels
from .proposals import ProposalOutcome, proposal_outcomes, relabel_reason
from .targets import check_move_target


@transaction.atomic
def study_version_move(
    *, study: Study, to_version: TaxonomyVersion, actor, expected_from_version: int | None = None
) -> StudyVersionMove:
    """Move the study and every label to `to_version`; reopen submitted annotations that need re-labelling
    and send the final labels that need a person back to adjudication."""
    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can move it to another taxonomy version.")
    # Lock order: the study, its study issues, their resolutions, then their annotations, each in pk order
    # (as the other services: study issue, resolution, annotation, assignment, counter; labels version last).
    # The annotations are locked before their labels are rewritten: an autosave holds its annotation and
    # then replaces the labels, so touching the labels first would deadlock with it.
    locked = Study.objects.select_for_update(of=("self",)).select_related("taxonomy_version").get(pk=study.pk)
    if expected_from_version is not None and locked.taxonomy_version_id != expected_from_version:
        raise ConflictError("This study was moved to another taxonomy version meanwhile; reload the page.")
    check_move_target(locked, to_version)
    list(StudyIssue.objects.select_for_update().filter(study=locked).order_by("pk").values_list("pk", flat=True))
    resolutions = list(
        Resolution.objects.select_for_update(of=("self",))
        .filter(study_issue__study=locked)
        .select_related("study_issue")
        .order_by("pk")
    )
    list(
        Annotation.objects.select_for_update(of=("self",))
        .filter(assignment__study_issue__study=locked)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    from_version = locked.taxonomy_version
    fates = version_category_map(from_version=from_version, to_version=to_version)
    new_dimensions = {d.key: d for d in Dimension.objects.filter(version=to_version)}
    used_keys = [dimension.key for dimension in study_dimensions(study=locked)]
    missing = [key for key in used_keys if key not in new_dimensions]
    if missing:
        raise DomainError(f"v{to_version.number} lacks the dimension(s) {', '.join(missing)} this study labels.")
    category_dimension = dict(Category.objects.filter(dimension__version=to_version).values_list("pk", "dimension_id"))

    rows = study_rater_labels(locked)
    before: dict[int, dict[str, list[int]]] = {}
    after: dict[int, dict[str, list[int]]] = {}
    seen: set[tuple[int, int]] = set()
    to_update, duplicates, relabel = [], [], set()
    counts: Counter = Counter()
    for pk, annotation_id, key, category_id in rows:
        fate = fates[category_id]
        counts[fate.kind] += 1
        before.setdefault(annotation_id, {}).setdefault(key, []).append(category_id)
        new_id = fate.new_category
        if new_id is None:
            raise DomainError(f"Category {category_id} has no counterpart in v{to_version.number}; nothing was moved.")
        if fate.kind in RELABEL:
            relabel.add(annotation_id)
        if (annotation_id, new_id) in seen:
            duplicates.append(pk)  # two labels merged into one category: one row is enough
            continue
        seen.add((annotation_id, new_id))
        after.setdefault(annotation_id, {}).setdefault(key, []).append(new_id)
        to_update.append(AnnotationValue(pk=pk, category_id=new_id, dimension_id=category_dimension[new_id]))
    AnnotationValue.objects.filter(pk__in=duplicates).delete()
    AnnotationValue.objects.bulk_update(to_update, ["category_id", "dimension_id"], batch_size=1000)
    submitted = dict(Annotation.objects.filter(pk__in=list(before)).values_list("pk", "submitted_at"))
    outcomes = proposal_outcomes(
        study=locked,
        from_version=from_version,
        to_version=to_version,
        fates=fates,
        labels=after,
        keys=set(used_keys),
        single_valued={key for key in used_keys if not new_dimensions[key].multi_valued},
    )
    proposal_relabel: dict[int, list[ProposalOutcome]] = {}
    for outcome in outcomes:
        if not outcome.becomes_label:
            proposal_relabel.setdefault(outcome.annotation_id, []).append(outcome)
    split_relabel = set(relabel)
    relabel |= set(proposal_relabel)

    move = StudyVersionMove.objects.create(
        study=locked,
        from_version=from_version,
        to_version=to_version,
        actor=actor,
        mapping={
            str(pk): {"kind": fate.kind, "to": fate.new_category, "targets": list(fate.targets)}
            for pk, fate in fates.items()
        },
        before={
            "annotations": {
                str(a): {"values": v, "submitted": submitted.get(a) is not None} for a, v in before.items()
            },
            "resolutions": {},
            "proposals": {},
        },
    )
    note = f"carried from v{from_version.number} to v{to_version.number} of the taxonomy (move {move.pk})"
    Annotation.objects.filter(pk__in=list(before)).update(version=F("version") + 1)
    versions = dict(Annotation.objects.filter(pk__in=list(before)).values_list("pk", "version"))
    AnnotationHistory.objects.bulk_create(
        [
            AnnotationHistory(
                annotation_id=annotation_id,
                actor=actor,
                action=AnnotationHistory.Action.REVISE,
                version=versions[annotation_id],
                before={"values": values, "taxonomy_version": from_version.number},
                after={
                    "values": after.get(annotation_id, {}),
                    "taxonomy_version": to_version.number,
                    "reason": note,
                    "needs_relabel": annotation_id in relabel,
                },
            )
            for annotation_id, values in before.items()
        ],
        batch_size=1000,
    )
    from_proposals = _labels_from_proposals(
        outcomes, actor=actor, move=move, after=after, category_dimension=category_dimension, note=note
    )
    to_reopen = dict(
        Annotation.objects.filter(pk__in=relabel, submitted_at__isnull=False).values_list(
            "pk", "assignment__study_issue_id"
        )
    )
    rater_stale: dict[int, set[int]] = {}  # study issue -> split/deprecated categories its reopened labels used
    for _pk, annotation_id, _key, category_id in rows:
        if annotation_id in to_reopen and fates[category_id].kind in RELABEL:
            rater_stale.setdefault(to_reopen[annotation_id], set()).add(category_id)
    stale, resolution_counts = final_labels_move(resolutions, fates, actor, move, note)
    resolution_counts["resolutions_reset"] = final_labels_reset(
        resolutions, stale, rater_stale, fates=fates, actor=actor, to_version=to_version
    )
    resolution_counts["resolutions_reset"] += _reset_for_proposals(
        resolutions,
        {to_reopen[pk] for pk in proposal_relabel if pk in to_reopen},
        handled={*rater_stale, *(r.study_issue_id for r in resolutions if stale.get(r.pk))},
        actor=actor,
    )

    reopened = []
    names = {key: new_dimensions[key].name for key in used_keys}
    for annotation in Annotation.objects.filter(pk__in=relabel, submitted_at__isnull=False).order_by("pk"):
        reasons = []
        if annotation.pk in split_relabel:
            reasons.append(
                f"A category this annotation used was split or deprecated in v{to_version.number}; "
                "choose one of the new categories."
            )
        if annotation.pk in proposal_relabel:
            said = relabel_reason(proposal_relabel[annotation.pk], names=names, to_version=to_version)
            reasons.append(f"{said[:1].upper()}{said[1:]}: choose a category, or keep proposing.")
        annotation_reopen(annotation=annotation, actor=actor, reason=" ".join(reasons))
        reopened.append(annotation.pk)

    locked.taxonomy_version = to_version
    locked.save(update_fields=["taxonomy_version", "updated_at"])
    locked.dimensions.set([new_dimensions[key] for key in used_keys])
    move.counts = {
        **{kind: counts.get(kind, 0) for kind in KINDS},
        "reopened": len(reopened),
        "pending_relabel": len(relabel) - len(reopened),
        "from_proposals": from_proposals,
        "proposals_to_relabel": len(proposal_relabel),
        **resolution_counts,
    }
    move.relabel_annotation_ids = sorted(relabel)
    move.save(update_fields=["counts", "relabel_annotation_ids", "before"])
    study_labels_changed(study_id=locked.pk)  # every label points to a new category: the report is stale
    study.taxonomy_version = to_version
    return move


def _labels_from_proposals(
    outcomes: list[ProposalOutcome],
    *,
    actor,
    move: StudyVersionMove,
    after: dict[int, dict[str, list[int]]],
    category_dimension: dict[int, int],
    note: str,
) -> int:
    """Each sorted proposal becomes its category on the proposing rater's annotation (the label records the
    proposal), the proposal leaves the annotation, and a "from proposal" history entry says so. The first
    submission is left as it was. Returns how many proposals became labels."""
    settled: dict[int, list[ProposalOutcome]] = {}
    for outcome in outcomes:
        if outcome.becomes_label:
            settled.setdefault(outcome.annotation_id, []).append(outcome)
    if not settled:
        return 0
    annotations = list(Annotation.objects.filter(pk__in=list(settled)).order_by("pk"))
    rows, history = [], []
    for annotation in annotations:
        values = {key: sorted(ids) for key, ids in after.get(annotation.pk, {}).items()}
        new_values = {key: list(ids) for key, ids in values.items()}
        old_proposals = dict(annotation.proposals or {})
        proposals = dict(old_proposals)
        for outcome in settled[annotation.pk]:
            if outcome.adds_label:
                rows.append(
                    AnnotationValue(
                        annotation_id=annotation.pk,
                        dimension_id=category_dimension[outcome.category_id],
                        category_id=outcome.category_id,
                        from_proposal=outcome.text[:500],
                    )
                )
                new_values.setdefault(outcome.dimension_key, []).append(outcome.category_id)
            proposals.pop(outcome.dimension_key, None)
        move.before["proposals"][str(annotation.pk)] = old_proposals
        annotation.proposals = proposals
        annotation.version += 1  # we hold the row lock
        history.append(
            AnnotationHistory(
                annotation_id=annotation.pk,
                actor=actor,
                action=AnnotationHistory.Action.FROM_PROPOSAL,
                version=annotation.version,
                before={"values": values, "proposals": old_proposals},
                after={
                    "values": {key: sorted(ids) for key, ids in sorted(new_values.items())},
                    "proposals": proposals,
                    "from_proposals": [
                        {
                            "dimension": o.dimension_key,
                            "proposal": o.text,
                            "category": o.category_id,
                            "decision": o.decision_id,
                        }
                        for o in settled[annotation.pk]
                    ],
                    "reason": note,
                },
            )
        )
    AnnotationValue.objects.bulk_create(rows, batch_size=1000)
    Annotation.objects.bulk_update(annotations, ["proposals", "version"], batch_size=1000)
    AnnotationHistory.objects.bulk_create(history, batch_size=1000)
    return sum(len(found) for found in settled.values())


def _reset_for_proposals(resolutions: list[Resolution], issues: set[int], *, handled: set[int], actor) -> int:
    """A decided issue whose annotation is reopened for a proposal goes back to adjudication, as one reopened
    for a split does (those, in `handled`, were reset already): it was decided on labels now being redone."""
    chosen = [
        r
        for r in resolutions
        if r.study_issue_id in issues and r.study_issue_id not in handled and r.status == Resolution.Status.RESOLVED
    ]
    for resolution in chosen:
        resolution_reset(
            study_issue=resolution.study_issue,
            actor=actor,
            reason="A rater's proposal was not turned into a category by the move, so their annotation was reopened: "
            "re-adjudicate once they have re-labelled the issue.",
            expected_version=resolution.version,
        )
    return len(chosen)
