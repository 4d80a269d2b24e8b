"""Krippendorff's alpha for any number of raters, missing data, and a nominal/ordinal/interval/ratio or custom metric.

alpha = 1 - D_o / D_e from the coincidence matrix o (Krippendorff 2011, "Computing Krippendorff's
Alpha-Reliability"): o_ck = sum over units u with m_u >= 2 values of (number of ordered pairs of values (c, k)
from different raters in u) / (m_u - 1); n_c = sum_k o_ck, n = sum_c n_c;
alpha = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck, with d the squared distance of the level.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import krippendorff
import numpy as np

from ._input import (
    NAN,
    AgreementUndefined,
    Coded,
    MeasureSpec,
    Result,
    as_float,
    check_numeric,
    encode,
    frozen,
    require_ordered,
)

LEVELS = ("nominal", "ordinal", "interval", "ratio")

# The `krippendorff` package builds a units x values x values tensor: 100,000 units x 30 values is 720 MB per
# temporary and seconds of work. Up to this many cells we let the package compute alpha; above it we use the
# vectorised coincidence matrix below, which the tests check against the package on random data for every level.
PACKAGE_MAX_CELLS = 2_000_000


def coincidences(codes: np.ndarray, k: int) -> np.ndarray:
    """Krippendorff's coincidence matrix o (k x k) from integer codes (raters x units, -1 missing).

    One weighted bincount per pair of raters: O(raters^2 * units) time and O(units + k^2) memory.
    """
    valid = codes >= 0
    m = valid.sum(axis=0)
    w = np.zeros(codes.shape[1])
    np.divide(1.0, m - 1, out=w, where=m >= 2)
    o = np.zeros(k * k)
    for i in range(codes.shape[0]):
        for j in range(i + 1, codes.shape[0]):
            ok = valid[i] & valid[j]
            o += np.bincount(codes[i, ok] * k + codes[j, ok], weights=w[ok], minlength=k * k)
    o = o.reshape(k, k)
    return o + o.T


def _distance_matrix(level: str, n_c: np.ndarray, values: np.ndarray | None) -> np.ndarray:
    """Squared distances of Krippendorff (2011); ``n_c`` are the coincidence marginals, ``values`` the labels."""
    k = len(n_c)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "ordinal":
        # d_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2: ranks weighted by how often the values in between occur.
        cum = np.concatenate(([0.0], np.cumsum(n_c)))
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        return (cum[hi + 1] - cum[lo] - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    assert values is not None
    diff = values[:, None] - values[None, :]
    if level == "interval":
        return diff**2
    total = values[:, None] + values[None, :]
    out = np.zeros((k, k))
    np.divide(diff, total, out=out, where=total != 0)
    return out**2


def _alpha_own(codes: np.ndarray, k: int, metric: str | np.ndarray, values: np.ndarray | None) -> Result:
    o = coincidences(codes, k)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d = metric if isinstance(metric, np.ndarray) else _distance_matrix(metric, n_c, values)
    expected = float(n_c @ d @ n_c)
    if expected <= 0:
        return NAN, AgreementUndefined.NO_VARIATION
    return as_float(1.0 - (n - 1) * float((o * d).sum()) / expected), None


def _alpha_package(codes: np.ndarray, k: int, metric: str | np.ndarray, values: np.ndarray | None) -> Result:
    units = np.broadcast_to(np.arange(codes.shape[1]), codes.shape)
    valid = codes >= 0
    value_counts = np.bincount(units[valid] * k + codes[valid], minlength=codes.shape[1] * k)
    value_counts = value_counts.reshape(codes.shape[1], k)
    if isinstance(metric, np.ndarray):
        matrix = metric

        def level(v1, v2, i1, i2, n_v, dtype=np.float64):  # the package's DistanceMetric protocol
            return matrix[i1, i2].astype(dtype)

        domain = np.arange(k)
    else:
        level, domain = metric, (values if metric in ("interval", "ratio") else np.arange(k))
    with np.errstate(all="ignore"):
        value = krippendorff.alpha(value_counts=value_counts, value_domain=domain, level_of_measurement=level)
    return (NAN, AgreementUndefined.NO_VARIATION) if not np.isfinite(value) else (as_float(value), None)


def alpha_from_codes(codes: np.ndarray, k: int, metric: str | np.ndarray, values: np.ndarray | None = None) -> Result:
    """Alpha for encoded data; ``metric`` is a level name or a k x k matrix of distances d_ck (for the built-in
    levels these are Krippendorff's squared differences; a custom distance is used as d_ck as it is, like NLTK)."""
    if codes.shape[0] == 0 or codes.shape[1] == 0:
        return NAN, AgreementUndefined.NO_DATA
    if codes.shape[0] < 2:
        return NAN, AgreementUndefined.TOO_FEW_RATERS
    m = (codes >= 0).sum(axis=0)
    if not (m >= 2).any():
        return NAN, AgreementUndefined.NO_PAIRABLE_ITEMS
    # Which values occur in pairable units: one of them only means D_e = 0 (the package would raise).
    used = np.unique(codes[:, m >= 2])
    if len(used[used >= 0]) < 2:
        return NAN, AgreementUndefined.ONE_CATEGORY
    if codes.shape[1] * k * k <= PACKAGE_MAX_CELLS:
        return _alpha_package(codes, k, metric, values)
    return _alpha_own(codes, k, metric, values)


def prepare_alpha(
    data: object,
    level: str = "nominal",
    categories: Sequence | None = None,
    distance: Callable[[object, object], float] | None = None,
) -> Coded:
    """Check and encode the rows for alpha at a level of measurement, or with a distance between two labels."""
    measure = "krippendorff_alpha"
    if level not in LEVELS:
        raise ValueError(f"{measure}: unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    if distance is not None:
        if level != "nominal":
            raise ValueError(f"{measure}: give either level or distance, not both (distance replaces the level)")
        if not callable(distance):
            raise ValueError(f"{measure}: distance must be a function of two labels, got {distance!r}")
        # Sets are the usual labels with a custom distance: make them hashable so they can be encoded.
        coded = encode(data, measure, categories, cell=lambda v: frozenset(v) if isinstance(v, set) else v)
        cats = coded.categories
        matrix = np.array(
            [[float(distance(a, b)) if i != j else 0.0 for j, b in enumerate(cats)] for i, a in enumerate(cats)]
        )
        if matrix.size and (not np.isfinite(matrix).all() or (matrix < 0).any()):
            raise ValueError(f"{measure}: distance must return finite, non-negative numbers")
        return Coded(coded.codes, cats, frozen({"metric": matrix, "values": None}))
    coded = encode(data, measure, categories)
    values = None
    if level == "ordinal":
        require_ordered(categories, coded, measure, "the ordinal level")
    elif level in ("interval", "ratio"):
        values = check_numeric(coded.categories, measure, f"the {level} level")
    return Coded(coded.codes, coded.categories, frozen({"metric": level, "values": values}))


def compute_alpha(coded: Coded) -> Result:
    """Alpha of rows encoded by `prepare_alpha`."""
    return alpha_from_codes(coded.codes, coded.k, coded.options["metric"], coded.options["values"])


# Krippendorff's alpha: the `krippendorff` package on small inputs, the vectorised coincidences above it (tested equal).
def krippendorff_alpha(
    data: object,
    level: str = "nominal",
    categories: Sequence | None = None,
    distance: Callable[[object, object], float] | None = None,
) -> float:
    """Krippendorff's alpha for any number of raters with missing cells (units with fewer than two values drop out).

    ``level`` picks the distance of Krippendorff (2011): nominal (0/1), ordinal (by the frequencies of the ranks
    in between, in the order of ``categories``, which must be given for non-numeric labels), interval (squared
    difference of numeric labels) or ratio (((c - k) / (c + k))^2). ``distance(a, b)`` instead gives any distance
    between two labels (e.g. ``masi_distance`` for set-valued labels; sets are accepted as cells). Computed by the
    ``krippendorff`` package up to ``PACKAGE_MAX_CELLS`` units x values^2, by the same formula vectorised here above.

    NaN with fewer than two raters, no unit with two values, or one value only (expected disagreement 0).
    """
    return compute_alpha(prepare_alpha(data, level, categories, distance))[0]


SPECS = (MeasureSpec("krippendorff_alpha", prepare_alpha, compute_alpha, None),)
