"""Carrying a study's labels to a later taxonomy version along the lineage.

Renames, moves and merges are carried automatically. A label whose category was split (or deprecated)
cannot be placed by a program: it stays on the old category's deprecated copy in the new version and
its annotation, if submitted, is reopened so that it is back in the rater's queue. A final label
(resolution) is carried the same way; one that used such a category, or that was decided on annotations
now reopened, goes back to adjudication through the resolution service (`resolution_reset`).

Nothing is lost: AnnotationValue rows are updated in place, but each changed annotation and resolution
gets a history entry with its labels before and after, and a StudyVersionMove keeps the whole old -> new
mapping and every label as it was, so the labels under any earlier version can be read back
(`labels_as_of_version`) and agreement computed per version (`agreement_per_version`).
"""

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F

from annotator.agreement import krippendorff_alpha, percent_agreement
from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyVersionMove,
)
from annotator.permissions import can_manage_study
from annotator.services.agreement.version import study_labels_changed
from annotator.services.annotations import annotation_reopen
from annotator.services.resolutions import resolution_reset
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.services.operations import CategoryFate, version_category_map
from taxonomy.services.operations.mapping import KINDS

RELABEL = frozenset({"split", "deprecated"})


@dataclass
class MovePreview:
    """What moving the study would do; shown to the owner before they confirm."""

    from_version: TaxonomyVersion
    to_version: TaxonomyVersion
    labels: Counter = field(default_factory=Counter)  # rater labels by fate kind
    resolution_labels: Counter = field(default_factory=Counter)
    per_dimension: dict[str, Counter] = field(default_factory=dict)
    annotations_to_reopen: int = 0
    annotations_pending_relabel: int = 0  # not yet submitted: already in the queue
    resolutions_to_reset: int = 0  # final labels that go back to adjudication
    examples: list[dict] = field(default_factory=list)  # a few affected categories, for the page

    @property
    def counts(self) -> dict[str, int]:
        return {kind: self.labels.get(kind, 0) for kind in KINDS}

    @property
    def resolution_rows(self) -> list[tuple[str, int]]:
        return [(kind, self.resolution_labels[kind]) for kind in KINDS if self.resolution_labels.get(kind)]

    @property
    def to_relabel(self) -> int:
        return sum(self.labels.get(kind, 0) for kind in RELABEL)


@dataclass(frozen=True)
class LabelRow:
    annotation_id: int
    study_issue_id: int
    rater_id: int
    submitted: bool
    values: dict[str, list[int]]


def study_version_targets(*, study: Study) -> list[TaxonomyVersion]:
    """Published versions of the study's taxonomy that follow its current version."""
    current = study.taxonomy_version
    found = []
    candidates = TaxonomyVersion.objects.filter(
        taxonomy_id=current.taxonomy_id, status=TaxonomyVersion.Status.PUBLISHED, number__gt=current.number
    ).order_by("number")
    for version in candidates:
        ancestor = version
        while ancestor is not None and ancestor.pk != current.pk:
            ancestor = ancestor.based_on
        if ancestor is not None:
            found.append(version)
    return found


def _check_target(study: Study, to_version: TaxonomyVersion) -> None:
    if to_version.pk == study.taxonomy_version_id:
        raise DomainError(f"The study already uses v{to_version.number}.")
    if to_version.taxonomy_id != study.taxonomy_version.taxonomy_id:
        raise DomainError("A study can only move to a later version of its own taxonomy.")
    if not to_version.is_published:
        raise DomainError(f"v{to_version.number} is a draft; publish it before moving the study to it.")


def _values(study: Study) -> list[tuple[int, int, str, int]]:
    """(value id, annotation id, dimension key, category id) of every rater label in the study."""
    return list(
        AnnotationValue.objects.filter(annotation__assignment__study_issue__study=study)
        .order_by("annotation_id", "pk")
        .values_list("pk", "annotation_id", "dimension__key", "category_id")
    )


def _stale(values: dict | None, fates: dict[int, CategoryFate]) -> dict[str, list[int]]:
    """The split or deprecated categories of a final label, per dimension: a person decides those again."""
    found = {key: [int(pk) for pk in ids if fates[int(pk)].kind in RELABEL] for key, ids in (values or {}).items()}
    return {key: ids for key, ids in found.items() if ids}


def _needs_reset(status: str, stale: dict[str, list[int]], reopened: bool) -> bool:
    """A final label goes back to adjudication when it used a split or deprecated category, or when it was
    decided on annotations that are now reopened. A pending or sent-back one whose raters re-label is left
    as it is: the automatic comparison redoes it when they have all submitted again."""
    return bool(stale) or (reopened and status == Resolution.Status.RESOLVED)


def study_version_preview(*, study: Study, to_version: TaxonomyVersion) -> MovePreview:
    _check_target(study, to_version)
    fates = version_category_map(from_version=study.taxonomy_version, to_version=to_version)
    preview = MovePreview(from_version=study.taxonomy_version, to_version=to_version)
    relabel_annotations = set()
    affected: Counter = Counter()
    for _pk, annotation_id, key, category_id in _values(study):
        kind = fates[category_id].kind
        preview.labels[kind] += 1
        preview.per_dimension.setdefault(key, Counter())[kind] += 1
        if kind in RELABEL:
            relabel_annotations.add(annotation_id)
        if kind != "unchanged":
            affected[category_id] += 1
    to_reopen = dict(
        Annotation.objects.filter(pk__in=relabel_annotations, submitted_at__isnull=False).values_list(
            "pk", "assignment__study_issue_id"
        )
    )
    preview.annotations_to_reopen = len(to_reopen)
    preview.annotations_pending_relabel = len(relabel_annotations - set(to_reopen))
    reopened_issues = set(to_reopen.values())
    resolutions = Resolution.objects.filter(study_issue__study=study).values_list("study_issue_id", "status", "values")
    for study_issue_id, status, values in resolutions:
        for ids in (values or {}).values():
            for category_id in ids:
                preview.resolution_labels[fates[int(category_id)].kind] += 1
        if _needs_reset(status, _stale(values, fates), study_issue_id in reopened_issues):
            preview.resolutions_to_reset += 1
    names = dict(Category.objects.filter(pk__in=[*affected, *_all_targets(fates, affected)]).values_list("pk", "name"))
    for category_id, n in affected.most_common(20):
        fate = fates[category_id]
        preview.examples.append(
            {"name": names[category_id], "kind": fate.kind, "labels": n, "to": [names[t] for t in fate.targets]}
        )
    return preview


def _all_targets(fates: dict[int, CategoryFate], ids) -> set[int]:
    return {t for pk in ids for t in fates[pk].targets}


def _map_ids(ids: list, fates: dict[int, CategoryFate]) -> tuple[list[int], bool]:
    """New category ids for a resolution's ids, and whether any needs a person (split/deprecated)."""
    mapped, relabel = [], False
    for category_id in ids:
        fate = fates[int(category_id)]
        relabel = relabel or fate.kind in RELABEL
        if fate.new_category is not None and fate.new_category not in mapped:
            mapped.append(fate.new_category)
    return sorted(mapped), relabel


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
    used_keys = list(locked.dimensions.values_list("key", flat=True)) or list(
        Dimension.objects.filter(version=from_version).values_list("key", flat=True)
    )
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


def labels_as_of_version(*, study: Study, version: TaxonomyVersion) -> list[LabelRow]:
    """Every rater label of the study as it was under `version` (current labels for the current version).

    For an earlier version, the labels are those recorded when the study was moved away from it.
    """
    if version.pk == study.taxonomy_version_id:
        values: dict[int, dict[str, list[int]]] = {}
        for _pk, annotation_id, key, category_id in _values(study):
            values.setdefault(annotation_id, {}).setdefault(key, []).append(category_id)
        submitted = None
    else:
        move = StudyVersionMove.objects.filter(study=study, from_version=version).order_by("-at", "-pk").first()
        if move is None:
            raise DomainError(f"This study never labelled with v{version.number} of the taxonomy.")
        stored = move.before.get("annotations", {})
        values = {int(a): row["values"] for a, row in stored.items()}
        submitted = {int(a): row["submitted"] for a, row in stored.items()}
    rows = Annotation.objects.filter(assignment__study_issue__study=study).values_list(
        "pk", "assignment__study_issue_id", "assignment__rater_id", "submitted_at"
    )
    out = []
    for annotation_id, study_issue_id, rater_id, submitted_at in rows.order_by("pk"):
        if annotation_id not in values:
            continue
        was_submitted = submitted_at is not None if submitted is None else submitted.get(annotation_id, False)
        out.append(LabelRow(annotation_id, study_issue_id, rater_id, was_submitted, values[annotation_id]))
    return out


def agreement_per_version(*, study: Study) -> list[dict]:
    """Percent agreement and Krippendorff's alpha per dimension under each version the study has used."""
    versions = [move.from_version for move in study.version_moves.select_related("from_version").order_by("at")]
    versions.append(study.taxonomy_version)
    unique = list({v.pk: v for v in versions}.values())
    keys = list(study.dimensions.values_list("key", flat=True))
    result = []
    for version in unique:
        rows = [row for row in labels_as_of_version(study=study, version=version) if row.submitted]
        for key in keys:
            by_issue: dict[int, list] = {}
            for row in rows:
                if key in row.values:
                    by_issue.setdefault(row.study_issue_id, []).append("|".join(map(str, sorted(row.values[key]))))
            columns = [labels for labels in by_issue.values() if len(labels) >= 2]
            width = max((len(c) for c in columns), default=0)
            data = [[c[i] if i < len(c) else None for c in columns] for i in range(width)]
            result.append(
                {
                    "version": version.number,
                    "dimension": key,
                    "issues": len(columns),
                    "percent": percent_agreement(data) if columns else float("nan"),
                    "alpha": krippendorff_alpha(data) if columns else float("nan"),
                }
            )
    return result
