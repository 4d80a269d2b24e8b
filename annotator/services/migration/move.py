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
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.services.operations import version_category_map
from taxonomy.services.operations.mapping import KINDS

from .final_labels import _move_resolutions, _reset_resolutions
from .labels import RELABEL, _values
from .targets import _check_target


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
    _check_target(locked, to_version)
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

    rows = _values(locked)
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
    to_reopen = dict(
        Annotation.objects.filter(pk__in=relabel, submitted_at__isnull=False).values_list(
            "pk", "assignment__study_issue_id"
        )
    )
    rater_stale: dict[int, set[int]] = {}  # study issue -> split/deprecated categories its reopened labels used
    for _pk, annotation_id, _key, category_id in rows:
        if annotation_id in to_reopen and fates[category_id].kind in RELABEL:
            rater_stale.setdefault(to_reopen[annotation_id], set()).add(category_id)
    stale, resolution_counts = _move_resolutions(resolutions, fates, actor, move, note)
    resolution_counts["resolutions_reset"] = _reset_resolutions(
        resolutions, stale, rater_stale, fates=fates, actor=actor, to_version=to_version
    )

    reopened = []
    for annotation in Annotation.objects.filter(pk__in=relabel, submitted_at__isnull=False).order_by("pk"):
        annotation_reopen(
            annotation=annotation,
            actor=actor,
            reason=f"A category this annotation used was split or deprecated in v{to_version.number}; "
            "choose one of the new categories.",
        )
        reopened.append(annotation.pk)

    locked.taxonomy_version = to_version
    locked.save(update_fields=["taxonomy_version", "updated_at"])
    locked.dimensions.set([new_dimensions[key] for key in used_keys])
    move.counts = {
        **{kind: counts.get(kind, 0) for kind in KINDS},
        "reopened": len(reopened),
        "pending_relabel": len(relabel) - len(reopened),
        **resolution_counts,
    }
    move.relabel_annotation_ids = sorted(relabel)
    move.save(update_fields=["counts", "relabel_annotation_ids", "before"])
    study_labels_changed(study_id=locked.pk)  # every label points to a new category: the report is stale
    study.taxonomy_version = to_version
    return move
