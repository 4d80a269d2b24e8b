"""Reading what study-level agreement needs: who may see it, the labels, and a cheap "labels version".

Every function here costs a fixed number of queries whatever the size of the study; the labels come
back as integer numpy arrays (no model instance or dict per label), so 100,000 doubly-labelled issues
stay affordable.
"""

import itertools
import time
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max, OuterRef, Q, Subquery

from annotator.models import (
    Annotation,
    AnnotationValue,
    FirstSubmission,
    FirstSubmissionValue,
    PhaseChange,
    Resolution,
    Study,
    StudyIssue,
    StudyLabelsVersion,
    StudyMember,
    StudyRound,
)
from annotator.permissions import can_see_all_labels, is_rater, study_roles
from annotator.selectors.publication import member_pseudonyms
from annotator.selectors.resolution_values import category_ids, final_labels_by_resolution
from annotator.selectors.studies import study_dimensions, study_get_for_user
from taxonomy.models import Category, Dimension

FULL = "full"
SUMMARY = "summary"
BLIND_MESSAGE = (
    "Agreement figures are hidden from raters while the study is blind: the confusion matrix would show "
    "the other rater's labels. They become visible when the study is published."
)


def agreement_access(*, user, study: Study) -> str | None:
    """FULL for owners, adjudicators and staff; SUMMARY for raters once the study is published or not blind."""
    if can_see_all_labels(user, study):
        return FULL
    if is_rater(user, study) and (not study.blind or study.phase == Study.Phase.PUBLISHED):
        return SUMMARY
    return None


def agreement_study_for_user(*, user, pk: int) -> tuple[Study, str]:
    """The study and the user's access level: 404 for non-members, 403 for raters of a blind study."""
    study = study_get_for_user(user=user, pk=pk)
    access = agreement_access(user=user, study=study)
    if access is None:
        raise PermissionDenied(BLIND_MESSAGE)
    return study, access


def rater_aliases(*, user, study: Study) -> dict[int, str] | None:
    """Rater id -> a stable pseudonym (R1, R2, ... in the order raters joined the study) when the study's
    adjudication is anonymous and the viewer is not its owner (the owner set the study up and knows who rated
    what); None when names may be shown."""
    if not study.anonymous_adjudication or user.is_staff or StudyMember.Role.OWNER in study_roles(user, study):
        return None
    return member_pseudonyms(study=study)


def labels_version(*, study: Study) -> str:
    """A token that changes whenever a label of the study (an annotation, a resolution), its rounds or the
    study itself change: one query on two small per-study rows, whatever the size of the study.

    The annotation and resolution services bump the study's StudyLabelsVersion in the transaction that
    changes a label; a new round (drawn or imported) adds a StudyRound; moving to another taxonomy version
    saves the study.
    """
    rounds = StudyRound.objects.filter(study=OuterRef("pk")).order_by().values("study")
    number, round_count, last_round = (
        Study.objects.filter(pk=study.pk)
        .values_list(
            Subquery(StudyLabelsVersion.objects.filter(study=OuterRef("pk")).values("number")),
            Subquery(rounds.annotate(count=Count("pk")).values("count")),
            Subquery(rounds.annotate(last=Max("pk")).values("last")),
        )
        .get()
    )
    return f"{study.updated_at.isoformat()}|{number or 0}|{round_count}|{last_round}"


@dataclass
class DimensionInfo:
    pk: int
    key: str
    name: str
    multi_valued: bool
    level_names: list[str]
    applies_when: dict
    order: int


@dataclass
class CategoryInfo:
    pk: int
    dimension_id: int
    parent_id: int | None
    name: str
    order: int


@dataclass
class LabelLayer:
    """One layer of rater labels as parallel numpy arrays: the first submissions, or the current annotations.

    One element per submission (ordered by id): study issue, rater, round number, excluded. One element per
    chosen category: the submission (an index into those arrays), dimension, category. One element per
    proposal of a new category: the submission and the dimension it was proposed for.
    """

    si: np.ndarray = field(default_factory=lambda: _ints(0))
    rater: np.ndarray = field(default_factory=lambda: _ints(0))
    round: np.ndarray = field(default_factory=lambda: _ints(0))
    excluded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    val_row: np.ndarray = field(default_factory=lambda: _ints(0))
    val_dim: np.ndarray = field(default_factory=lambda: _ints(0))
    val_cat: np.ndarray = field(default_factory=lambda: _ints(0))
    proposed_row: np.ndarray = field(default_factory=lambda: _ints(0))
    proposed_dim: np.ndarray = field(default_factory=lambda: _ints(0))


@dataclass
class StudyLabels:
    """A study's labels as plain data and numpy arrays (the input of the agreement computation).

    ``first``: each rater's first, independent submission of each issue (what "before discussion" reports).
    ``revised``: the submitted annotations as they are now, after any discussion.
    """

    dimensions: list[DimensionInfo]
    categories: dict[int, CategoryInfo]
    rounds: list[tuple[int, str]]  # (number, kind)
    rater_names: dict[int, str]
    first: LabelLayer = field(default_factory=LabelLayer)
    revised: LabelLayer = field(default_factory=LabelLayer)
    # One element per resolution (ordered by study issue): study issue, excluded, resolved (a final label, not
    # pending or sent back), {dimension key: [category ids]}.
    res_si: np.ndarray = field(default_factory=lambda: _ints(0))
    res_excluded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    res_resolved: np.ndarray | None = None
    res_values: list[dict[str, list[int]]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    # What agreement is computed on: {"issues": the study's issues, "double_coded": those in the reliability
    # subset, "partial": whether some issues are single-coded (then only the subset's labels are here)}.
    subset: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.res_resolved is None:
            self.res_resolved = np.ones(len(self.res_si), dtype=bool)


def _ints(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


def _columns(queryset, width: int) -> np.ndarray:
    """The rows of a values_list of integers (booleans count as 0/1) as a (width, n) int64 array.

    The rows stream through a chunked iterator into one flat numpy buffer: no list of tuples is kept.
    """
    flat = np.fromiter(itertools.chain.from_iterable(queryset.iterator(chunk_size=20_000)), dtype=np.int64)
    return flat.reshape(-1, width).T


def _layer(submissions, values, proposals, dimension_by_key: dict[str, int]) -> LabelLayer:
    """A layer from three querysets: (id, study issue, rater, round, excluded), (submission, dimension,
    category) and (id, {dimension key: proposal})."""
    columns = _columns(submissions, 5)
    ids, si, rater, round_number, excluded = columns[:, np.argsort(columns[0], kind="stable")]
    val_ann, val_dim, val_cat = _columns(values, 3)
    # Submissions are sorted by id, so each value finds its submission's index by binary search.
    val_row = np.searchsorted(ids, val_ann)
    proposed = [
        (pk, dimension_by_key[key])
        for pk, texts in proposals.iterator(chunk_size=2_000)
        for key, text in (texts or {}).items()
        if key in dimension_by_key and str(text or "").strip()
    ]
    proposed_ids = np.array([pk for pk, _ in proposed], dtype=np.int64)
    return LabelLayer(
        si=si,
        rater=rater,
        round=round_number,
        excluded=excluded.astype(bool),
        val_row=val_row,
        val_dim=val_dim,
        val_cat=val_cat,
        proposed_row=np.searchsorted(ids, proposed_ids),
        proposed_dim=np.array([dim for _, dim in proposed], dtype=np.int64),
    )


def _first_layer(study: Study, dimension_by_key: dict[str, int], *, subset_only: bool = False) -> LabelLayer:
    """The first submissions, plus every submitted annotation that has none (one written by a path that does
    not record first submissions, e.g. an import of a prior study's sheets): never revised in the app, its
    current labels are what was first submitted, as the backfill of the first submissions assumed."""
    snapshots = FirstSubmission.objects.filter(study_issue__study=study).order_by()
    values = FirstSubmissionValue.objects.filter(first_submission__study_issue__study=study).order_by()
    only = {}
    if subset_only:
        snapshots = snapshots.filter(study_issue__double_coded=True)
        values = values.filter(first_submission__study_issue__double_coded=True)
        only = {"assignment__study_issue__double_coded": True}
    recorded = _layer(
        snapshots.values_list("pk", "study_issue_id", "rater_id", "study_issue__round__number", "excluded"),
        values.values_list("first_submission_id", "dimension_id", "category_id"),
        snapshots.exclude(proposals={}).values_list("pk", "proposals"),
        dimension_by_key,
    )
    unrecorded = _annotation_layer(study, dimension_by_key, first_submission__isnull=True, **only)
    return _concat(recorded, unrecorded) if len(unrecorded.si) else recorded


def _concat(first: LabelLayer, second: LabelLayer) -> LabelLayer:
    offset = len(first.si)
    return LabelLayer(
        **{
            name: np.concatenate([getattr(first, name), getattr(second, name) + (offset if "row" in name else 0)])
            for name in ("si", "rater", "round", "val_row", "val_dim", "val_cat", "proposed_row", "proposed_dim")
        },
        excluded=np.concatenate([first.excluded, second.excluded]),
    )


def _annotation_layer(study: Study, dimension_by_key: dict[str, int], **only) -> LabelLayer:
    """The submitted annotations as they are now (``only``: further filters on the annotations)."""
    submitted = Annotation.objects.filter(
        assignment__study_issue__study=study, submitted_at__isnull=False, **only
    ).order_by()
    fields = ("assignment__study_issue_id", "assignment__rater_id", "assignment__study_issue__round__number")
    return _layer(
        submitted.values_list("pk", *fields, "excluded"),
        AnnotationValue.objects.filter(annotation__in=submitted.values("pk"))
        .order_by()
        .values_list("annotation_id", "dimension_id", "category_id"),
        submitted.exclude(proposals={}).values_list("pk", "proposals"),
        dimension_by_key,
    )


def _carry_to_current_version(layer: LabelLayer, dims: list[DimensionInfo], categories: dict) -> None:
    """First submissions made before the study moved to another taxonomy version name that version's
    dimensions and categories: carry each to the current dimension of the same key and the current category
    of the same lineage; a category with no successor stays itself (its name is added to ``categories``).

    No query unless some first submission names a category outside the study's current dimensions."""
    unknown = set(np.unique(layer.val_cat).tolist()) - set(categories)
    if not unknown:
        return
    by_key = {d.key: d.pk for d in dims}
    old = list(
        Category.objects.filter(pk__in=unknown).values_list(
            "pk", "lineage_id", "dimension__key", "parent_id", "name", "order"
        )
    )
    successors = dict(
        Category.objects.filter(dimension__in=list(by_key.values()), lineage_id__in=[row[1] for row in old])
        .order_by()
        .values_list("lineage_id", "pk")
    )
    category_map, dimension_map = {}, {}
    for pk, lineage, key, parent_id, name, order in old:
        if key not in by_key:
            continue
        if lineage in successors:
            category_map[pk] = successors[lineage]
        else:
            categories[pk] = CategoryInfo(pk, by_key[key], parent_id, name, order)
    for pk, key in Dimension.objects.filter(categories__pk__in=unknown).values_list("pk", "key").distinct():
        if key in by_key:
            dimension_map[pk] = by_key[key]
    layer.val_cat = np.array([category_map.get(c, c) for c in layer.val_cat.tolist()], dtype=np.int64)
    layer.val_dim = np.array([dimension_map.get(d, d) for d in layer.val_dim.tolist()], dtype=np.int64)


def study_reliability_subset(*, study: Study) -> dict:
    """How many of the study's issues are double-coded (agreement is measured on them) and how many in all."""
    counts = StudyIssue.objects.filter(study=study).aggregate(
        issues=Count("id"), double_coded=Count("id", filter=Q(double_coded=True))
    )
    issues, double = counts["issues"] or 0, counts["double_coded"] or 0
    subset = {"issues": issues, "double_coded": double, "partial": double < issues}
    return {**subset, "text": subset_text(subset)}


def subset_text(subset: dict | None) -> str:
    """'computed on 61 double-coded issues of 305' when some issues are single-coded; else empty."""
    if not subset or not subset.get("partial"):
        return ""
    double, issues = subset["double_coded"], subset["issues"]
    return f"computed on {double} double-coded issue{'s' if double != 1 else ''} of {issues}"


def study_labels(*, study: Study) -> StudyLabels:
    """Every first submission, every submitted annotation and every resolution of the study, in a fixed
    number of queries whatever its size.

    The labels come back as integers streamed straight into numpy arrays (no model instances, no dict per
    label): at 100,000 issues that is most of what a first computation of the report costs.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    dimensions = study_dimensions(study=study)
    dims = [
        DimensionInfo(
            d.pk, d.key, d.name, d.multi_valued, list(d.level_names or []), dict(d.applies_when or {}), d.order
        )
        for d in dimensions
    ]
    categories = {
        pk: CategoryInfo(pk, dim_id, parent_id, name, order)
        for pk, dim_id, parent_id, name, order in Category.objects.filter(dimension__in=[d.pk for d in dims])
        .order_by()
        .values_list("pk", "dimension_id", "parent_id", "name", "order")
    }
    rounds = list(StudyRound.objects.filter(study=study).order_by("number").values_list("number", "kind"))
    by_key = {d.key: d.pk for d in dims}
    subset = study_reliability_subset(study=study)
    partial = subset["partial"]
    timings["taxonomy"] = time.perf_counter() - started

    started = time.perf_counter()
    first = _first_layer(study, by_key, subset_only=partial)
    _carry_to_current_version(first, dims, categories)
    timings["first submissions"] = time.perf_counter() - started

    started = time.perf_counter()
    revised = _annotation_layer(study, by_key, **({"assignment__study_issue__double_coded": True} if partial else {}))
    timings["annotations"] = time.perf_counter() - started

    started = time.perf_counter()
    resolutions = Resolution.objects.filter(study_issue__study=study)
    if partial:
        resolutions = resolutions.filter(study_issue__double_coded=True)
    res_rows = list(
        resolutions.order_by("study_issue_id").values_list("study_issue_id", "excluded", "status", "pk", "methods")
    )
    # Category ids only: a dimension settled on a rater's proposal has no category to agree with yet.
    final_ids = final_labels_by_resolution((row[3], row[4], row[1]) for row in res_rows)
    res_si = np.fromiter((row[0] for row in res_rows), dtype=np.int64, count=len(res_rows))
    res_excluded = np.fromiter((bool(row[1]) for row in res_rows), dtype=bool, count=len(res_rows))
    resolved = Resolution.Status.RESOLVED
    res_resolved = np.fromiter((row[2] == resolved for row in res_rows), dtype=bool, count=len(res_rows))
    timings["resolutions"] = time.perf_counter() - started

    raters = np.union1d(first.rater, revised.rater).tolist()
    rater_names = {
        pk: display or username
        for pk, username, display in get_user_model()
        .objects.filter(pk__in=raters)
        .values_list("pk", "username", "display_name")
    }
    return StudyLabels(
        dims,
        categories,
        rounds,
        rater_names,
        first=first,
        revised=revised,
        res_si=res_si,
        res_excluded=res_excluded,
        res_resolved=res_resolved,
        res_values=[category_ids(final_ids[row[3]]) for row in res_rows],
        timings=timings,
        subset=subset,
    )


def cell_issues(*, study: Study, study_issue_ids: list[int]) -> list[dict]:
    """The issues behind a confusion-matrix cell, in study order, with what a link needs: one query."""
    rows = (
        StudyIssue.objects.filter(study=study, pk__in=study_issue_ids)
        .select_related("issue__repository")
        .order_by("position")
        .only(
            "pk",
            "position",
            "issue__id",
            "issue__title",
            "issue__number",
            "issue__repository__name",
            "issue__repository__display_name",
        )
    )
    return [
        {
            "position": row.position,
            "issue_id": row.issue.pk,
            "title": row.issue.title,
            "number": row.issue.number,
            "repository": row.issue.repository.display_name or row.issue.repository.name,
        }
        for row in rows
    ]


def phase_changes(*, study: Study) -> list[PhaseChange]:
    return list(PhaseChange.objects.filter(study=study).select_related("actor").order_by("-at", "-id")[:20])


__all__ = [
    "BLIND_MESSAGE",
    "FULL",
    "SUMMARY",
    "LabelLayer",
    "StudyLabels",
    "agreement_access",
    "agreement_study_for_user",
    "cell_issues",
    "labels_version",
    "phase_changes",
    "rater_aliases",
    "study_labels",
]
