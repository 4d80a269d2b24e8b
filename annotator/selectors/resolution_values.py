"""A resolution's final labels, read from its ResolutionValue rows in the one shape every caller uses.

``{dimension key: [category id, ..., ProposedLabel]}`` for each decided dimension (ids sorted, a proposal the
adjudicator settled on last; ``[]`` for an optional dimension decided empty); a pending dimension is absent and
an excluded issue has none. A dimension is decided when it has a key in ``Resolution.methods``.

List readers prefetch the rows with ``final_values_prefetch`` (one query for the page, whatever its length);
streaming readers read a chunk's rows at once with ``final_labels_by_resolution``.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Prefetch

from annotator.models import Resolution, ResolutionValue

EXCLUDED_KEY = Resolution.EXCLUDED_KEY
PROPOSAL_MARK = "proposal: "  # how exports and pages mark a final label that is a rater's proposal


@dataclass(frozen=True, slots=True, order=True)
class ProposedLabel:
    """A final label that is a rater's proposal (no category yet): its text and the annotation that proposed it."""

    text: str
    annotation_id: int

    @property
    def marked(self) -> str:
        return f"{PROPOSAL_MARK}{self.text}"


Label = int | ProposedLabel
Labels = dict[str, list[Label]]


def final_values_prefetch(lookup: str = "final_values") -> Prefetch:
    """The rows of the resolutions a queryset reads (``lookup`` through a relation, e.g. "resolution__final_values")."""
    return Prefetch(lookup, queryset=ResolutionValue.objects.select_related("dimension").order_by("pk"))


def _decided_keys(methods: dict | None, excluded: bool) -> list[str]:
    return [] if excluded else [key for key in (methods or {}) if key != EXCLUDED_KEY]


def _assemble(keys: Iterable[str], rows: Iterable[tuple[str, int | None, str, int | None]]) -> Labels:
    labels: dict[str, list[Label]] = {key: [] for key in keys}
    for key, category_id, proposal, annotation_id in rows:
        value = category_id if category_id is not None else ProposedLabel(proposal, annotation_id)
        labels.setdefault(key, []).append(value)
    return {key: sort_labels(values) for key, values in sorted(labels.items())}


def assemble_labels(methods: dict | None, excluded: bool, rows: Iterable[tuple]) -> Labels:
    """Labels from (dimension key, category id, proposal, proposal annotation id) rows read by the caller."""
    return _assemble(_decided_keys(methods, excluded), rows)


def sort_labels(values: Iterable[Label]) -> list[Label]:
    unique = list(dict.fromkeys(values))
    return sorted(v for v in unique if isinstance(v, int)) + sorted(v for v in unique if not isinstance(v, int))


def resolution_labels(resolution: Resolution | None) -> Labels:
    """The final labels of one resolution (uses prefetched rows when the queryset prefetched them)."""
    if resolution is None:
        return {}
    rows = (
        (row.dimension.key, row.category_id, row.proposal, row.proposal_annotation_id)
        for row in resolution.final_values.all()
    )
    return _assemble(_decided_keys(resolution.methods, resolution.excluded), rows)


def resolution_labels_fresh(resolution: Resolution) -> Labels:
    """The final labels as stored now (a service reading under its row lock; never a prefetched copy)."""
    rows = ResolutionValue.objects.filter(resolution=resolution).values_list(
        "dimension__key", "category_id", "proposal", "proposal_annotation_id"
    )
    return _assemble(_decided_keys(resolution.methods, resolution.excluded), rows)


def category_ids(labels: Labels) -> dict[str, list[int]]:
    """Only the categories: ``{key: [ids]}`` (a proposal-valued dimension maps to [])."""
    return {key: [v for v in values if isinstance(v, int)] for key, values in labels.items()}


def proposals_of(labels: Labels) -> dict[str, ProposedLabel]:
    return {key: v for key, values in labels.items() for v in values if isinstance(v, ProposedLabel)}


def final_labels_by_resolution(resolutions: Iterable[tuple[int, dict | None, bool]]) -> dict[int, Labels]:
    """Labels of many resolutions given as (pk, methods, excluded), in one query."""
    keys = {pk: _decided_keys(methods, excluded) for pk, methods, excluded in resolutions}
    rows: dict[int, list] = {pk: [] for pk in keys}
    for resolution_id, *row in (
        ResolutionValue.objects.filter(resolution_id__in=list(keys))
        .order_by()
        .values_list("resolution_id", "dimension__key", "category_id", "proposal", "proposal_annotation_id")
    ):
        rows[resolution_id].append(row)
    return {pk: _assemble(keys[pk], rows[pk]) for pk in keys}
