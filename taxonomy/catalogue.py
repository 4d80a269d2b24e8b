"""A taxonomy version's dimensions and categories as plain, immutable values, for validating labels quickly.

Saving a label checks every chosen category against the study's taxonomy version (right dimension,
selectable, not deprecated). A published version never changes (taxonomy/services/versions.py, and the
admin refuses edits), so its catalogue is read once per process and kept; a draft version can change at
any moment, so its catalogue is read every time. The cache key carries the publication time as well as
the id: a database where ids are reused (a test database rolled back, a restored dump) cannot hand out
another version's categories.
"""

from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from threading import Lock

from taxonomy.models import Category, Dimension

# Versions kept per process; a catalogue is a few hundred small tuples.
CACHE_SIZE = 64


@dataclass(frozen=True, slots=True)
class DimensionInfo:
    pk: int
    key: str
    name: str
    order: int
    required: bool
    multi_valued: bool


@dataclass(frozen=True, slots=True)
class CategoryInfo:
    pk: int
    dimension_id: int
    name: str
    selectable: bool
    deprecated: bool


@dataclass(frozen=True, slots=True)
class VersionCatalogue:
    version_id: int
    dimensions: dict[int, DimensionInfo]  # by pk, in display order (order, key, pk)
    categories: dict[int, CategoryInfo]  # by pk

    def dimensions_by_key(self, dimension_ids: list[int] | None = None) -> dict[str, DimensionInfo]:
        """The given dimensions (all of the version's when None or empty), by key, in display order."""
        chosen = set(dimension_ids or ())
        return {info.key: info for pk, info in self.dimensions.items() if not chosen or pk in chosen}


_cache: "OrderedDict[tuple[int, datetime], VersionCatalogue]" = OrderedDict()
_lock = Lock()


def version_catalogue(*, version_id: int, published_at: datetime | None) -> VersionCatalogue:
    """The catalogue of a version: from the per-process cache when it is published, else read now (2 queries)."""
    if published_at is None:
        return _read(version_id)
    key = (version_id, published_at)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    catalogue = _read(version_id)
    with _lock:
        _cache[key] = catalogue
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return catalogue


def version_catalogue_clear() -> None:
    """Forget every cached catalogue (tests that rebuild taxonomies in place)."""
    with _lock:
        _cache.clear()


def _read(version_id: int) -> VersionCatalogue:
    dimensions = {
        pk: DimensionInfo(pk, key, name, order, required, multi_valued)
        for pk, key, name, order, required, multi_valued in Dimension.objects.filter(version_id=version_id)
        .order_by("order", "key", "pk")
        .values_list("pk", "key", "name", "order", "required", "multi_valued")
    }
    categories = {
        pk: CategoryInfo(pk, dimension_id, name, selectable, deprecated)
        for pk, dimension_id, name, selectable, deprecated in Category.objects.filter(
            dimension__version_id=version_id
        ).values_list("pk", "dimension_id", "name", "selectable", "deprecated")
    }
    return VersionCatalogue(version_id=version_id, dimensions=dimensions, categories=categories)
