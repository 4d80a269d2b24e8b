"""The report's figures from integer-coded label matrices (pure: numpy and the agreement package, no Django).

The public measures of ``annotator.agreement`` take rater rows of Python labels and encode them on every call;
at 100,000 issues that encoding, repeated for every level, pair and round, cost more than the measures. Here
the labels already are integers (category ids, or ids of distinct label sets), so each measure gets the
package's encoded form (``Coded``) built exactly as its own ``prepare`` step builds it, and the package
computes the value: same formulas, same numbers (the tests compare every figure with the public functions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats
from statsmodels.stats import inter_rater

from annotator.agreement import AgreementUndefined, clip_interval, landis_koch_band, masi_distance
from annotator.agreement._input import Coded, complete_pairs, frozen, pair_table
from annotator.agreement._registry import SPECS

MISSING = -1
LEVEL = 0.95
Z = float(stats.norm.ppf((1 + LEVEL) / 2))
# Above this label value a lookup table would be large: sort instead (category ids stay far below it).
LOOKUP_MAX = 5_000_000


def num(value: float | None) -> float | None:
    """JSON-safe number: NaN (undefined) becomes None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def encode(rows: np.ndarray, labels: Sequence | None = None) -> Coded:
    """The package's ``encode`` for integer rows (MISSING = -1): categories are the labels used, ascending.

    ``labels``: for set-valued dimensions, the label set behind each integer (categories become those sets).
    """
    rows = np.asarray(rows, dtype=np.int64)
    if rows.shape[0] == 0:
        return Coded(codes=np.empty((0, 0), dtype=np.int64), categories=())
    valid = rows >= 0
    values = rows[valid]
    if values.size and int(values.max()) < LOOKUP_MAX:
        used = np.zeros(int(values.max()) + 1, dtype=bool)
        used[values] = True
        cats = np.flatnonzero(used)
        inverse = (np.cumsum(used) - 1)[values]
    else:
        cats, inverse = np.unique(values, return_inverse=True)
    codes = np.full(rows.shape, MISSING, dtype=np.int64)
    codes[valid] = inverse
    categories = tuple(cats.tolist()) if labels is None else tuple(labels[c] for c in cats.tolist())
    return Coded(codes=codes, categories=categories)


def both_labelled(pair: np.ndarray) -> int:
    return int(((pair[0] >= 0) & (pair[1] >= 0)).sum()) if pair.shape[0] == 2 else 0


def _measure(name: str, coded: Coded, **options: Any) -> tuple[float, Any]:
    if options:
        coded = Coded(coded.codes, coded.categories, frozen(options))
    return SPECS[name].compute(coded)


def percent(pair: Coded) -> tuple[float, Any]:
    """``percent_agreement`` on two rows (the items both labelled)."""
    return _measure("percent_agreement", complete_pairs(pair, keep_categories=True))


def kappa(pair: Coded) -> float:
    """``cohen_kappa`` (unweighted) on two rows."""
    return _measure("cohen_kappa", complete_pairs(pair, keep_categories=False), weights=None)[0]


def kappa_ci(pair: Coded) -> dict[str, Any]:
    """``cohen_kappa_ci`` at 95%: kappa, se, low, high and why it is undefined (as that function computes them).

    low and high are the Wald interval clipped to kappa's range [-1, 1]; ``clipped`` says whether an end moved.
    """
    table = pair_table(complete_pairs(pair, keep_categories=False))
    n = int(table.sum())
    reason = None
    if n == 0:
        reason = AgreementUndefined.NO_COMMON_ITEMS
    elif int(table.sum(axis=1) @ table.sum(axis=0)) == n * n:  # p_e = 1: one and the same category throughout
        reason = AgreementUndefined.ONE_CATEGORY
    if reason is not None:
        nan = math.nan
        return {"kappa": nan, "se": nan, "low": nan, "high": nan, "clipped": False, "reason": str(reason)}
    with np.errstate(all="ignore"):
        res = inter_rater.cohens_kappa(table)
    value = float(res.kappa)
    se = float(np.sqrt(max(float(res.var_kappa), 0.0)))
    low, high, clipped = clip_interval(value - Z * se, value + Z * se)
    return {"kappa": value, "se": se, "low": low, "high": high, "clipped": clipped, "reason": ""}


def alpha(rows: Coded) -> float:
    """``krippendorff_alpha`` (nominal) on every rater's row."""
    return _measure("krippendorff_alpha", rows, metric="nominal", values=None)[0]


def ac1(rows: Coded) -> float:
    """``gwet_ac1`` on every rater's row (missing ratings as in Gwet's handbook)."""
    return _measure("gwet_ac1", rows)[0]


def alpha_masi(rows: Coded) -> tuple[float, Any]:
    """``krippendorff_alpha_masi`` on every rater's row; ``rows.categories`` are the label sets."""
    cats = rows.categories
    matrix = np.array(
        [[float(masi_distance(a, b)) if i != j else 0.0 for j, b in enumerate(cats)] for i, a in enumerate(cats)]
    )
    return _measure("krippendorff_alpha_masi", rows, metric=matrix, values=None)


def measure_row(pair: np.ndarray, every: np.ndarray, *, sets: Sequence | None = None) -> dict[str, Any]:
    """One row of figures. ``pair``: two rows of labels (two-rater measures); ``every``: every rater's row.

    ``sets``: for a set-valued dimension, the label set behind each integer label.
    """
    n = both_labelled(pair)
    pair_coded = encode(pair, sets)
    if sets is not None:
        if every.shape[0]:
            value, reason = alpha_masi(encode(every, sets))
        else:
            value, reason = math.nan, None
        exact = percent(pair_coded)[0]
        return {
            "n": n,
            "percent": num(exact),
            "exact_set": num(exact),
            "kappa": None,
            "se": None,
            "low": None,
            "high": None,
            "ci_clipped": None,
            "alpha": num(value),
            "ac1": None,
            "band": landis_koch_band(value),
            "gate_measure": "alpha_masi",
            "gate_value": num(value),
            "undefined": str(reason or ("no issue was labelled by two raters" if not n else "")),
            "ci_estimable": False,
            "ci_note": "no analytic interval for alpha with MASI (a bootstrap interval can be asked for)",
        }
    ci = kappa_ci(pair_coded)
    every_coded = encode(every)
    agreement = num(percent(pair_coded)[0])
    estimable, note = interval_estimable(ci, agreement)
    if not estimable:
        ci = {**ci, "low": math.nan, "high": math.nan, "clipped": False}
    return {
        "n": n,
        "percent": agreement,
        "exact_set": None,
        "kappa": num(ci["kappa"]),
        "se": num(ci["se"]),
        "low": num(ci["low"]),
        "high": num(ci["high"]),
        "ci_clipped": ci["clipped"] if num(ci["low"]) is not None else None,
        "alpha": num(alpha(every_coded)),
        "ac1": num(ac1(every_coded)),
        "band": landis_koch_band(ci["kappa"]),
        "gate_measure": "kappa",
        "gate_value": num(ci["kappa"]),
        "undefined": ci["reason"],
        "ci_estimable": estimable,
        "ci_note": note,
    }


def interval_estimable(ci: dict[str, Any], agreement: float | None) -> tuple[bool, str]:
    """Whether kappa's Wald interval says anything, and if not, why ("not estimable").

    Undefined kappa has no interval; a zero-width one (the large-sample SE is 0, e.g. when the raters agree on
    every issue) is not an interval of uncertainty either, and printed as "1.00 - 1.00" it would claim certainty
    a handful of issues cannot give.
    """
    low, high = num(ci["low"]), num(ci["high"])
    if ci["reason"] or low is None or high is None:
        return False, f"not estimable: {ci['reason'] or 'kappa is undefined'}"
    if high - low > 1e-9:
        return True, ""
    if agreement is not None and agreement >= 1 - 1e-12:
        return False, "not estimable: the raters agree on every issue (the standard error is 0)"
    return False, "not estimable: zero width (the standard error is 0)"


def trend_value(pair: np.ndarray, every: np.ndarray, *, sets: Sequence | None = None) -> float:
    """The gate measure of one round: kappa, or alpha with MASI for a set-valued dimension."""
    if sets is not None:
        return alpha_masi(encode(every, sets))[0] if every.shape[0] else math.nan
    return kappa(encode(pair))
