"""Writing a resolution's final labels as ResolutionValue rows (the only writer of that table).

The rows are the current state; what they were before is kept in the resolution's history (each revision
is a new history entry with the labels before and after), never overwritten.
"""

from collections.abc import Mapping, Sequence

from annotator.models import Resolution, ResolutionValue
from annotator.selectors.resolution_values import Labels, ProposedLabel
from core.errors import DomainError
from taxonomy.models import Dimension


def _key(value) -> tuple:
    if isinstance(value, ProposedLabel):
        return (None, value.annotation_id, value.text)
    return (int(value), None, "")


def value_rows(resolution: Resolution, labels: Labels, *, dimension_ids: Mapping[str, int]) -> list[ResolutionValue]:
    """Unsaved rows for ``labels`` (for a bulk_create of new resolutions)."""
    rows = []
    for key, values in labels.items():
        for value in dict.fromkeys(values):
            category_id, annotation_id, text = _key(value)
            rows.append(
                ResolutionValue(
                    resolution=resolution,
                    dimension_id=dimension_ids[key],
                    category_id=category_id,
                    proposal_annotation_id=annotation_id,
                    proposal=text,
                )
            )
    return rows


def resolution_values_replace(*, resolution: Resolution, labels: Labels, dimension_ids: Mapping[str, int]) -> None:
    """Make the resolution's rows say ``labels``: rows no longer wanted go, new ones come, the rest stay.

    The caller holds the resolution's row lock and writes the history entry.
    """
    wanted = {(dimension_ids[key], *_key(value)): (key, value) for key, values in labels.items() for value in values}
    existing = {
        (row.dimension_id, row.category_id, row.proposal_annotation_id, row.proposal): row.pk
        for row in ResolutionValue.objects.filter(resolution=resolution)
    }
    gone = [pk for key, pk in existing.items() if key not in wanted]
    if gone:
        ResolutionValue.objects.filter(pk__in=gone).delete()
    new = {key: labels_value for key, labels_value in wanted.items() if key not in existing}
    if new:
        ResolutionValue.objects.bulk_create(
            ResolutionValue(
                resolution=resolution,
                dimension_id=dimension_id,
                category_id=category_id,
                proposal_annotation_id=annotation_id,
                proposal=text,
            )
            for dimension_id, category_id, annotation_id, text in new
        )
    getattr(resolution, "_prefetched_objects_cache", {}).pop("final_values", None)


def resolutions_bulk_create(
    pairs: Sequence[tuple[Resolution, Labels]], *, version_id: int, batch_size: int = 1000
) -> list[Resolution]:
    """Insert new resolutions and the rows of their final labels (imports); the caller writes the history."""
    dimension_ids = dict(Dimension.objects.filter(version_id=version_id).values_list("key", "pk"))
    missing = sorted({key for _, labels in pairs for key in labels} - set(dimension_ids))
    if missing:
        raise DomainError(f"The taxonomy version has no dimension {', '.join(missing)}; nothing was imported.")
    created = Resolution.objects.bulk_create([resolution for resolution, _ in pairs], batch_size=batch_size)
    if any(r.pk is None for r in created):
        raise RuntimeError("This database does not return ids from bulk inserts; use PostgreSQL or SQLite 3.35+.")
    rows = [row for resolution, labels in pairs for row in value_rows(resolution, labels, dimension_ids=dimension_ids)]
    ResolutionValue.objects.bulk_create(rows, batch_size=batch_size)
    return created
