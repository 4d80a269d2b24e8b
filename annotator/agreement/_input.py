"""Input handling shared by every measure: validation, integer encoding, the reasons a measure can be undefined.

Every public measure takes ``data``: a list of rater rows of equal length (one column per item), ``None``
(or a float NaN) where a rater did not label the item. Labels are any hashable values. The rows are encoded once
into an ``(raters, items)`` int64 array, ``-1`` for a missing cell, so the measures and the bootstrap work on
integer codes with numpy instead of on Python objects.
"""

from __future__ import annotations

import enum
import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

MISSING = -1
NAN = float("nan")


class AgreementUndefined(enum.StrEnum):
    """Why a measure returned NaN. Each member is a plain string, so it can be shown or stored as is."""

    NO_DATA = "no data: there are no rater rows or no items"
    NO_COMMON_ITEMS = "no item was labelled by both raters"
    NO_PAIRABLE_ITEMS = "no item was labelled by two or more raters"
    NO_COMPLETE_ITEMS = "no item was labelled by every rater (Fleiss' kappa needs the same raters on every item)"
    TOO_FEW_RATERS = "fewer than two raters, so there is nothing to agree with"
    ONE_CATEGORY = (
        "every rating falls into one and the same category, so the agreement expected by chance is 1 "
        "and the chance-corrected measure is 0/0"
    )
    FEWER_THAN_TWO_CATEGORIES = "fewer than two categories, so agreement cannot differ from chance (1 - 1/q is 0)"
    NO_VARIATION = "all pairable values are at distance 0 from each other, so the expected disagreement is 0"
    ALL_RESAMPLES_UNDEFINED = "the measure was undefined in every bootstrap resample"


Result = tuple[float, AgreementUndefined | None]


@dataclass(frozen=True)
class Coded:
    """Rater rows encoded as integer codes.

    ``codes[r, i]`` is the index into ``categories`` of rater ``r``'s label for item ``i``, or ``MISSING``.
    ``options`` holds the measure's resolved keyword arguments (weights, level, distance matrix...).
    """

    codes: np.ndarray
    categories: tuple
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def k(self) -> int:
        return len(self.categories)

    @property
    def n_raters(self) -> int:
        return self.codes.shape[0]

    @property
    def n_items(self) -> int:
        return self.codes.shape[1]

    def take(self, idx: np.ndarray) -> Coded:
        """The same raters on the items ``idx`` (a bootstrap resample)."""
        return replace(self, codes=self.codes[:, idx])


@dataclass(frozen=True)
class MeasureSpec:
    """How the bootstrap and ``why_undefined`` drive a measure.

    ``prepare(data, **kwargs)`` validates and encodes; ``compute(coded)`` returns ``(value, reason)``;
    ``batch(tables, coded)``, for two-rater measures that depend only on the contingency table, maps a stack of
    ``(B, k, k)`` tables to ``B`` values in one vectorised step.
    """

    name: str
    prepare: Callable[..., Coded]
    compute: Callable[[Coded], Result]
    batch: Callable[[np.ndarray, Coded], np.ndarray] | None = None


def is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def check_rows(data: object, measure: str) -> list[Sequence]:
    if isinstance(data, np.ndarray):
        if data.ndim != 2 and data.size:
            raise ValueError(f"{measure}: data must be a 2-D array of rater rows, got shape {data.shape}")
        data = list(data)
    if isinstance(data, (str, bytes, Mapping)) or not isinstance(data, Sequence):
        raise ValueError(f"{measure}: data must be a list of rater rows, got {type(data).__name__}")
    rows = list(data)
    for r, row in enumerate(rows):
        if isinstance(row, (str, bytes, Mapping)) or not isinstance(row, (Sequence, np.ndarray)):
            raise ValueError(f"{measure}: rater row {r} must be a sequence of labels, got {type(row).__name__}")
    lengths = {len(row) for row in rows}
    if len(lengths) > 1:
        detail = ", ".join(f"row {r} has {len(row)}" for r, row in enumerate(rows))
        raise ValueError(f"{measure}: rater rows have unequal lengths ({detail}); every row needs one cell per item")
    return rows


def check_categories(categories: object, measure: str) -> tuple:
    if isinstance(categories, (str, bytes, Mapping)) or not isinstance(categories, (Sequence, np.ndarray)):
        raise ValueError(f"{measure}: categories must be an ordered list of labels, got {type(categories).__name__}")
    cats = tuple(categories)
    for c in cats:
        if is_missing(c):
            raise ValueError(f"{measure}: categories must not contain None/NaN (that marks a missing label)")
        if not isinstance(c, Hashable):
            raise ValueError(f"{measure}: category {c!r} is not hashable")
    if len(set(cats)) != len(cats):
        dupes = sorted({repr(c) for c in cats if cats.count(c) > 1})
        raise ValueError(f"{measure}: categories contain duplicates: {', '.join(dupes)}")
    return cats


def _sort_key(value: object) -> tuple:
    return (type(value).__name__, repr(value))


def encode(
    data: object,
    measure: str,
    categories: Sequence | None = None,
    *,
    n_raters: int | None = None,
    cell: Callable[[object], object] | None = None,
) -> Coded:
    """Validate ``data`` and encode it; ``n_raters`` enforces a fixed number of rows (0 rows is always allowed).

    Without ``categories`` the observed labels are sorted (numbers numerically, strings alphabetically; mixed
    types by type name and repr) so results and tables come out in a stable order.
    ``cell`` converts each non-missing cell first (the set measures turn sets into frozensets).
    """
    rows = check_rows(data, measure)
    if n_raters is not None and rows and len(rows) != n_raters:
        raise ValueError(f"{measure} takes exactly {n_raters} rater rows, got {len(rows)}")
    if cell is not None:
        rows = [[None if is_missing(v) else cell(v) for v in row] for row in rows]
    n = len(rows[0]) if rows else 0

    seen: set = set()
    for r, row in enumerate(rows):
        try:
            seen.update(row)
        except TypeError:
            bad = next(v for v in row if not isinstance(v, Hashable))
            raise ValueError(f"{measure}: label {bad!r} in rater row {r} is not hashable") from None
    missing = [v for v in seen if is_missing(v)]
    labels = seen.difference(missing)

    if categories is None:
        try:
            cats = tuple(sorted(labels))
        except TypeError:
            cats = tuple(sorted(labels, key=_sort_key))
    else:
        cats = check_categories(categories, measure)
        unknown = labels.difference(cats)
        if unknown:
            shown = ", ".join(sorted(map(repr, unknown))[:5])
            raise ValueError(f"{measure}: label(s) {shown} not in the given categories {list(cats)!r}")

    index: dict = {c: i for i, c in enumerate(cats)}
    for v in missing:
        index[v] = MISSING
    codes = np.empty((len(rows), n), dtype=np.int64)
    for r, row in enumerate(rows):
        # map() over a dict lookup runs in C, not a Python loop per cell: encoding is most of a measure's cost at scale.
        codes[r] = np.fromiter(map(index.__getitem__, row), dtype=np.int64, count=n)
    if not rows:
        codes = np.empty((0, 0), dtype=np.int64)
    return Coded(codes=codes, categories=cats)


def complete_pairs(coded: Coded, keep_categories: bool) -> Coded:
    """Two-rater view: only the items both raters labelled.

    Without user-given categories the category list shrinks to the labels used in those items, so a label seen
    only next to a missing cell does not change q (the number of categories) for Bennett's S or AC1.
    """
    codes = coded.codes
    if codes.shape[0] == 0:
        return coded
    codes = codes[:, (codes >= 0).all(axis=0)]
    cats = coded.categories
    if not keep_categories and codes.size:
        used = np.zeros(len(cats), dtype=bool)
        used[codes.ravel()] = True
        if not used.all():
            remap = np.cumsum(used) - 1
            codes = remap[codes]
            cats = tuple(c for c, u in zip(cats, used, strict=True) if u)
    elif not keep_categories:
        cats = ()
    return replace(coded, codes=np.ascontiguousarray(codes), categories=cats)


def pair_table(coded: Coded) -> np.ndarray:
    """``k x k`` contingency table (rows: first rater, columns: second) of the items both raters labelled."""
    k = coded.k
    if coded.n_raters == 0:
        return np.zeros((k, k), dtype=np.int64)
    a, b = coded.codes
    ok = (a >= 0) & (b >= 0)
    return np.bincount(a[ok] * k + b[ok], minlength=k * k).reshape(k, k)


def check_numeric(categories: tuple, measure: str, why: str) -> np.ndarray:
    bad = [c for c in categories if not isinstance(c, numbers.Real) or isinstance(c, bool)]
    if bad:
        raise ValueError(f"{measure}: {why} needs numeric labels, got {bad[0]!r}")
    return np.asarray(categories, dtype=float)


def require_ordered(categories: Sequence | None, coded: Coded, measure: str, why: str) -> None:
    """Refuse to order string labels alphabetically behind the user's back when the order matters."""
    if categories is None and any(not isinstance(c, numbers.Real) for c in coded.categories):
        raise ValueError(f"{measure}: {why} needs ordered categories; pass categories=[...] in order")


def frozen(options: dict) -> Mapping[str, Any]:
    return MappingProxyType(dict(options))


def as_float(x: object) -> float:
    return float(x)  # a plain float, so results serialise to JSON and compare without numpy types
