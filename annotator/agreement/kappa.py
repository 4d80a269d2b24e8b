"""Two-rater agreement from the contingency table (percent, Cohen, Scott, Bennett) and Fleiss' kappa.

Two-rater measures use only the items both raters labelled. Each has a ``_batch_*`` twin that takes a stack of
``(B, k, k)`` tables: the bootstrap calls it on thousands of resampled tables at once. The twins work in exact
integer arithmetic up to the final division, so "undefined" is an exact test, not a float comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats import inter_rater

from ._input import (
    NAN,
    AgreementUndefined,
    Coded,
    MeasureSpec,
    Result,
    as_float,
    complete_pairs,
    encode,
    frozen,
    pair_table,
    require_ordered,
)
from .intervals import clip_interval

WEIGHTS = (None, "linear", "quadratic")


def table_parts(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """n, number of agreements, row and column marginals of a stack of tables (last two axes)."""
    row = tables.sum(axis=-1)
    col = tables.sum(axis=-2)
    agree = np.trace(tables, axis1=-2, axis2=-1)
    return row.sum(axis=-1), agree, row, col


def ratio_or_nan(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den as floats, NaN where den == 0, without numpy warnings."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, NAN)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _two_rater(data: object, measure: str, categories: Sequence | None, **options: object) -> Coded:
    coded = encode(data, measure, categories, n_raters=2)
    coded = complete_pairs(coded, keep_categories=categories is not None)
    return Coded(coded.codes, coded.categories, frozen(options))


# --- percent agreement: hand-written (a proportion; no library function takes rater rows with missing cells) ---


def _batch_percent(tables: np.ndarray, coded: Coded) -> np.ndarray:
    n, agree, _, _ = table_parts(tables)
    return ratio_or_nan(agree, n)


def _prepare_percent(data: object, categories: Sequence | None = None) -> Coded:
    coded = encode(data, "percent_agreement", categories)
    if coded.n_raters == 2:
        coded = complete_pairs(coded, keep_categories=True)
    return coded


def _compute_percent(coded: Coded) -> Result:
    if coded.n_raters == 2 and coded.n_items == 0:
        return NAN, AgreementUndefined.NO_COMMON_ITEMS
    if coded.n_raters == 0 or coded.n_items == 0:
        return NAN, AgreementUndefined.NO_DATA
    if coded.n_raters == 1:
        return NAN, AgreementUndefined.TOO_FEW_RATERS
    if coded.n_raters == 2:
        value = _batch_percent(pair_table(coded)[None], coded)[0]
        return (NAN, AgreementUndefined.NO_COMMON_ITEMS) if np.isnan(value) else (as_float(value), None)
    from .gwet import item_agreement  # the multi-rater form is Gwet's / Fleiss' mean pairwise agreement

    pa = item_agreement(coded)
    return (NAN, AgreementUndefined.NO_PAIRABLE_ITEMS) if pa is None else (as_float(pa), None)


def percent_agreement(data: object, categories: Sequence | None = None) -> float:
    """Observed agreement: the share of items on which the raters chose the same label.

    Two rows: the proportion of the items both raters labelled on which they agree. More rows: for every item
    with two or more labels, the share of agreeing pairs of raters, averaged over those items (Fleiss 1971's
    P-bar, Gwet's p_a). ``categories``, if given, only checks the labels. NaN when no item has two labels.
    """
    return _compute_percent(_prepare_percent(data, categories))[0]


# --- Cohen's kappa: statsmodels.stats.inter_rater.cohens_kappa (unweighted and linear/quadratic weights) ---


def _disagreement_weights(k: int, weights: str | None) -> np.ndarray:
    """Integer disagreement weights |i-j| or (i-j)^2 (kappa is invariant to scaling them)."""
    i = np.arange(k)
    d = np.abs(i[:, None] - i[None, :])
    return (d != 0).astype(np.int64) if weights is None else (d if weights == "linear" else d * d)


def _batch_kappa(tables: np.ndarray, coded: Coded) -> np.ndarray:
    # kappa_w = 1 - n * sum(v * T) / sum(v * row col^T), v the disagreement weights (all 1 off the diagonal when
    # unweighted, which is the usual (p_o - p_e) / (1 - p_e)); Fleiss & Cohen (1973).
    n, _, row, col = table_parts(tables)
    k = tables.shape[-1]
    v = _disagreement_weights(k, coded.options.get("weights")).ravel()
    observed = tables.reshape(*tables.shape[:-2], k * k) @ v
    expected = np.einsum("...i,...j->...ij", row, col).reshape(*tables.shape[:-2], k * k) @ v
    return 1.0 - ratio_or_nan(n * observed, expected)


def _check_weights(weights: object) -> None:
    if weights not in WEIGHTS:
        raise ValueError(f"cohen_kappa: unknown weights {weights!r}; expected None, 'linear' or 'quadratic'")


def _prepare_kappa(
    data: object, weights: str | None = None, categories: Sequence | None = None, measure: str = "cohen_kappa"
) -> Coded:
    _check_weights(weights)
    coded = _two_rater(data, measure, categories, weights=weights)
    if weights is not None:
        require_ordered(categories, coded, measure, f"{weights} weighting")
    return coded


def _kappa_reason(table: np.ndarray, coded: Coded) -> AgreementUndefined | None:
    if coded.n_raters == 0:
        return AgreementUndefined.NO_DATA
    n = int(table.sum())
    if n == 0:
        return AgreementUndefined.NO_COMMON_ITEMS
    row, col = table.sum(axis=1), table.sum(axis=0)
    if int(row @ col) == n * n:  # p_e = 1: both raters put everything into the same single category
        return AgreementUndefined.ONE_CATEGORY
    return None


def _compute_kappa(coded: Coded) -> Result:
    table = pair_table(coded)
    reason = _kappa_reason(table, coded)
    if reason is not None:
        return NAN, reason
    weights = coded.options.get("weights")
    value = inter_rater.cohens_kappa(table, wt=weights, return_results=False)
    return as_float(value), None


def cohen_kappa(data: object, weights: str | None = None, categories: Sequence | None = None) -> float:
    """Cohen's (1960) kappa for two raters, optionally weighted (Cohen 1968).

    kappa = (p_o - p_e) / (1 - p_e), p_o the observed agreement and p_e = sum_c p_c. p_.c the agreement expected
    from each rater's own category frequencies. ``weights="linear"`` uses agreement weights 1 - |i-j|/(k-1),
    ``"quadratic"`` 1 - (i-j)^2/(k-1)^2, with i, j the positions in ``categories`` (which must then be given
    unless the labels are numbers: their sorted order is used). Unused categories change weighted kappa only.

    NaN when no item was labelled by both raters, or when both raters used the same single category throughout
    (p_e = 1, so kappa is 0/0).
    """
    return _compute_kappa(_prepare_kappa(data, weights, categories))[0]


@dataclass(frozen=True)
class KappaCI:
    """Cohen's kappa with its large-sample standard errors (Fleiss, Cohen & Everitt 1969).

    ``se`` is the SE of kappa; the Wald interval kappa -/+ z * se is ``low_unclipped``..``high_unclipped``, and
    ``low``..``high`` is that interval clipped to kappa's range [-1, 1] (``clipped`` says whether an end moved:
    with few items and high agreement the Wald interval runs past 1). ``se_h0`` is the SE under H0: kappa = 0
    and ``z`` = kappa / se_h0 the test statistic. ``reason`` says why the values are NaN.
    """

    kappa: float
    se: float
    low: float
    high: float
    se_h0: float
    z: float
    n: int
    level: float
    reason: AgreementUndefined | None = None
    low_unclipped: float = NAN
    high_unclipped: float = NAN
    clipped: bool = False


def _check_level(level: object, measure: str) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"{measure}: level must be a confidence level strictly between 0 and 1, got {level!r}")
    return float(level)


def cohen_kappa_ci(data: object, level: float = 0.95, categories: Sequence | None = None) -> KappaCI:
    """Unweighted Cohen's kappa with a normal-approximation confidence interval.

    Computed by statsmodels' ``cohens_kappa`` (SAS PROC FREQ formulas): se is Fleiss, Cohen & Everitt's (1969)
    large-sample SE, not the SE under the null; the Wald interval is kappa -/+ z_{(1+level)/2} * se
    (``low_unclipped``, ``high_unclipped``, as SAS and statsmodels report it), and ``low``/``high`` are its ends
    clipped to [-1, 1], with ``clipped`` True when one of them was outside.
    All fields are NaN in the cases where kappa is (see ``cohen_kappa``); ``z`` is NaN when se_h0 is 0.
    """
    level = _check_level(level, "cohen_kappa_ci")
    coded = _prepare_kappa(data, None, categories, measure="cohen_kappa_ci")
    table = pair_table(coded)
    n = int(table.sum())
    reason = _kappa_reason(table, coded)
    if reason is not None:
        return KappaCI(NAN, NAN, NAN, NAN, NAN, NAN, n, level, reason, NAN, NAN, False)
    with np.errstate(all="ignore"):  # statsmodels divides by se_h0, which is 0 e.g. when p_o = 1 on a 2x2 table
        res = inter_rater.cohens_kappa(table)
    kappa = as_float(res.kappa)
    # Rounding can leave a variance of -1e-17 at perfect agreement; it is 0.
    se = float(np.sqrt(max(float(res.var_kappa), 0.0)))
    se_h0 = float(np.sqrt(max(float(res.var_kappa0), 0.0)))
    zq = float(stats.norm.ppf((1 + level) / 2))
    z = kappa / se_h0 if se_h0 > 0 else NAN
    wald_low, wald_high = kappa - zq * se, kappa + zq * se
    low, high, clipped = clip_interval(wald_low, wald_high)
    return KappaCI(kappa, se, low, high, se_h0, z, n, level, None, wald_low, wald_high, clipped)


# --- Scott's pi: hand-written closed form; equals statsmodels' fleiss_kappa on two raters (tested) ---


def _batch_scott(tables: np.ndarray, coded: Coded) -> np.ndarray:
    # pi = (p_o - p_e) / (1 - p_e), p_e = sum_c ((row_c + col_c) / 2n)^2; multiplied out by 4n^2 to stay integer.
    n, agree, row, col = table_parts(tables)
    m2 = ((row + col) ** 2).sum(axis=-1)
    return ratio_or_nan(4 * n * agree - m2, 4 * n * n - m2)


def _prepare_scott(data: object, categories: Sequence | None = None) -> Coded:
    return _two_rater(data, "scott_pi", categories)


def _compute_two_rater(coded: Coded, batch) -> Result:
    table = pair_table(coded)
    reason = _kappa_reason(table, coded)
    if reason is not None:
        return NAN, reason
    value = batch(table[None], coded)[0]
    return (NAN, AgreementUndefined.ONE_CATEGORY) if np.isnan(value) else (as_float(value), None)


def scott_pi(data: object, categories: Sequence | None = None) -> float:
    """Scott's (1955) pi: like kappa, but chance agreement uses the two raters' pooled category frequencies.

    NaN when no item was labelled by both raters or only one category was used (p_e = 1).
    """
    return _compute_two_rater(_prepare_scott(data, categories), _batch_scott)[0]


# --- Bennett, Alpert & Goldstein's S: hand-written (p_e = 1/q needs no library) ---


def _batch_bennett(tables: np.ndarray, coded: Coded) -> np.ndarray:
    n, agree, _, _ = table_parts(tables)
    q = tables.shape[-1]
    return ratio_or_nan(q * agree - n, n * (q - 1))


def _prepare_bennett(data: object, categories: Sequence | None = None) -> Coded:
    return _two_rater(data, "bennett_s", categories)


def _compute_bennett(coded: Coded) -> Result:
    if coded.n_raters == 0:
        return NAN, AgreementUndefined.NO_DATA
    if coded.n_items == 0:
        return NAN, AgreementUndefined.NO_COMMON_ITEMS
    if coded.k < 2:
        return NAN, AgreementUndefined.FEWER_THAN_TWO_CATEGORIES
    return as_float(_batch_bennett(pair_table(coded)[None], coded)[0]), None


def bennett_s(data: object, categories: Sequence | None = None) -> float:
    """Bennett, Alpert & Goldstein's (1954) S: chance agreement is 1/q for q categories.

    q is ``len(categories)`` when given, else the number of labels used on the items both raters labelled.
    NaN when no item was labelled by both raters or q < 2.
    """
    return _compute_bennett(_prepare_bennett(data, categories))[0]


# --- Fleiss' kappa: statsmodels.stats.inter_rater.fleiss_kappa ---


def _prepare_fleiss(data: object, categories: Sequence | None = None) -> Coded:
    return encode(data, "fleiss_kappa", categories)


def _fleiss_counts(counts: np.ndarray) -> Result:
    if counts.shape[0] == 0:
        return NAN, AgreementUndefined.NO_COMPLETE_ITEMS
    m = int(counts[0].sum())
    if m < 2:
        return NAN, AgreementUndefined.TOO_FEW_RATERS
    totals = counts.sum(axis=0)
    if np.count_nonzero(totals) < 2:
        return NAN, AgreementUndefined.ONE_CATEGORY
    return as_float(inter_rater.fleiss_kappa(counts, method="fleiss")), None


def _compute_fleiss(coded: Coded) -> Result:
    if coded.n_raters == 0 or coded.n_items == 0:
        return NAN, AgreementUndefined.NO_DATA
    if coded.n_raters < 2:
        return NAN, AgreementUndefined.TOO_FEW_RATERS
    codes = coded.codes[:, (coded.codes >= 0).all(axis=0)]
    n, k = codes.shape[1], max(coded.k, 1)
    item = np.broadcast_to(np.arange(n), codes.shape)
    counts = np.bincount((item * k + codes).ravel(), minlength=n * k).reshape(n, k)
    return _fleiss_counts(counts)


def fleiss_kappa(data: object, categories: Sequence | None = None) -> float:
    """Fleiss' (1971) kappa for any fixed number of raters, computed by statsmodels.

    Uses the items every rater labelled (Fleiss' kappa assumes the same number of ratings per item). Equals
    Scott's pi for two raters; ``categories``, if given, only checks the labels.
    NaN with fewer than two raters, no complete item, or a single category used.
    """
    return _compute_fleiss(_prepare_fleiss(data, categories))[0]


def fleiss_kappa_from_counts(table: object) -> float:
    """Fleiss' kappa from an items x categories table of counts (each row: how many raters chose each category).

    Every row must sum to the same number of raters. NaN as for ``fleiss_kappa``.
    """
    counts = np.asarray(table)
    if counts.size == 0:
        return NAN
    if (
        counts.ndim != 2
        or not np.issubdtype(counts.dtype, np.number)
        or np.issubdtype(counts.dtype, np.complexfloating)
    ):
        raise ValueError("fleiss_kappa_from_counts: table must be a 2-D table of counts (items x categories)")
    if (counts < 0).any() or (counts != np.round(counts)).any():
        raise ValueError("fleiss_kappa_from_counts: counts must be non-negative integers")
    counts = counts.astype(np.int64)
    sums = np.unique(counts.sum(axis=1))
    if len(sums) > 1:
        raise ValueError(f"fleiss_kappa_from_counts: every item needs the same number of ratings, got {sums.tolist()}")
    return _fleiss_counts(counts)[0]


SPECS = (
    MeasureSpec("percent_agreement", _prepare_percent, _compute_percent, _batch_percent),
    MeasureSpec("cohen_kappa", _prepare_kappa, _compute_kappa, _batch_kappa),
    MeasureSpec("scott_pi", _prepare_scott, lambda c: _compute_two_rater(c, _batch_scott), _batch_scott),
    MeasureSpec("bennett_s", _prepare_bennett, _compute_bennett, _batch_bennett),
    MeasureSpec("fleiss_kappa", _prepare_fleiss, _compute_fleiss, None),
)
