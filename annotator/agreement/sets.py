"""Agreement on set-valued labels (an item may get several categories): MASI distance and alpha with it.

Both hand-written: MASI is in NLTK only (too heavy a dependency for one function, and it rounds 2/3 and 1/3 to
0.67 and 0.33), and no package computes alpha with it on rater rows with missing cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from ._input import Coded, MeasureSpec, Result, check_rows, is_missing
from .alpha import compute_alpha, prepare_alpha


def _as_set(value: object, what: str) -> frozenset:
    if isinstance(value, (str, bytes)) or not isinstance(value, (Set, Iterable)):
        raise ValueError(f"{what} must be a set of labels, got {value!r}")
    try:
        return frozenset(value)
    except TypeError:
        raise ValueError(f"{what} must contain hashable labels, got {value!r}") from None


# MASI: hand-written (NLTK's version rounds the weights; the reference value needs 2/3 and 1/3 exactly).
def masi_distance(a: Iterable, b: Iterable) -> float:
    """MASI distance (Passonneau 2006): 1 - J * M.

    J = |A & B| / |A | B| (Jaccard); M = 1 if A == B, 2/3 if one is a subset of the other, 1/3 if they overlap
    otherwise, 0 if they are disjoint. Two empty sets are identical: distance 0.
    """
    sa, sb = _as_set(a, "masi_distance: a"), _as_set(b, "masi_distance: b")
    if sa == sb:
        return 0.0
    common = len(sa & sb)
    if common == 0:
        return 1.0
    monotonicity = 2 / 3 if common == min(len(sa), len(sb)) else 1 / 3
    return 1.0 - common / len(sa | sb) * monotonicity


def _cell(value: object) -> frozenset:
    return _as_set(value, "krippendorff_alpha_masi: every labelled cell")


def _prepare_masi(data: object) -> Coded:
    # Validate the cells as sets first; prepare_alpha then encodes each distinct set as one value.
    rows = check_rows(data, "krippendorff_alpha_masi")
    rows = [[None if is_missing(v) else _cell(v) for v in row] for row in rows]
    return prepare_alpha(rows, distance=masi_distance)


def _compute_masi(coded: Coded) -> Result:
    return compute_alpha(coded)


# Alpha with MASI: the alpha of alpha.py (krippendorff package / vectorised) with a MASI distance matrix.
def krippendorff_alpha_masi(data: object) -> float:
    """Krippendorff's alpha with the MASI distance, for set-valued labels (Passonneau 2006).

    Each cell is a set (or frozenset, list, tuple) of labels, or None when the rater did not label the item; an
    empty set is a real answer ("no category applies"): pass None, not an empty set, for a rater who gave no
    answer (the study report does: an annotation with no category of a dimension is missing there). Same as
    ``krippendorff_alpha(data, distance=masi_distance)``; NaN in the same cases.
    """
    return _compute_masi(_prepare_masi(data))[0]


SPECS = (MeasureSpec("krippendorff_alpha_masi", _prepare_masi, _compute_masi, None),)
