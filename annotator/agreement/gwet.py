"""Gwet's AC1 (first-order agreement coefficient), hand-written.

None of the project's dependencies computes it (Gwet's own irrCAC package is not one of them, and would add
pandas for two formulas). The formulas are those of Gwet's Handbook of Inter-Rater Reliability (4th ed.) and are
checked against the handbook's examples with missing ratings (two raters and four; reference vectors and the
values of irrCAC, Gwet's reference implementation).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._input import NAN, AgreementUndefined, Coded, MeasureSpec, Result, as_float, encode, frozen
from .kappa import ratio_or_nan, table_parts


def _pair_agreements(codes: np.ndarray) -> np.ndarray:
    """Per item, the number of ordered pairs of raters who gave the same label: sum_k r_ik (r_ik - 1)."""
    same = np.zeros(codes.shape[1], dtype=np.int64)
    for i in range(codes.shape[0]):
        for j in range(i + 1, codes.shape[0]):
            same += (codes[i] == codes[j]) & (codes[i] >= 0)
    return 2 * same


def item_agreement(coded: Coded) -> float | None:
    """Gwet's p_a (= Fleiss' P-bar with missing data): the mean over items with r_i >= 2 ratings of
    sum_k r_ik (r_ik - 1) / (r_i (r_i - 1)). None when no item has two ratings."""
    r = (coded.codes >= 0).sum(axis=0)
    pairable = r >= 2
    if not pairable.any():
        return None
    rp = r[pairable]
    return float(np.mean(_pair_agreements(coded.codes[:, pairable]) / (rp * (rp - 1))))


def _batch_ac1(tables: np.ndarray, coded: Coded) -> np.ndarray:
    # Two raters (Gwet 2008): p_e = sum_c pi_c (1 - pi_c) / (q - 1), pi_c = (row_c + col_c) / 2n.
    # Multiplied out by 4 n^2 (q - 1) so that only the last step is a float division.
    n, agree, row, col = table_parts(tables)
    q = tables.shape[-1]
    m = row + col
    s = (m * (2 * n[..., None] - m)).sum(axis=-1)
    return ratio_or_nan(4 * n * (q - 1) * agree - s, 4 * n * n * (q - 1) - s)


def _prepare_ac1(data: object, categories: Sequence | None = None) -> Coded:
    # Every rating counts, also one next to a missing cell (Gwet's handbook): no pruning to complete pairs.
    coded = encode(data, "gwet_ac1", categories)
    return Coded(coded.codes, coded.categories, frozen({}))


def _compute_ac1(coded: Coded) -> Result:
    two = coded.n_raters == 2
    if coded.n_raters == 0 or coded.n_items == 0:
        return NAN, AgreementUndefined.NO_COMMON_ITEMS if two else AgreementUndefined.NO_DATA
    if coded.n_raters == 1:
        return NAN, AgreementUndefined.TOO_FEW_RATERS
    q = coded.k
    codes = coded.codes
    valid = codes >= 0
    if two and valid.all():  # no missing rating: the contingency-table form (Gwet 2008), same value
        if q < 2:
            return NAN, AgreementUndefined.FEWER_THAN_TWO_CATEGORIES
        a, b = codes
        table = np.bincount(a * q + b, minlength=q * q).reshape(q, q)
        return as_float(_batch_ac1(table[None], coded)[0]), None

    r = valid.sum(axis=0)
    pa = item_agreement(coded)
    if pa is None:
        return NAN, AgreementUndefined.NO_COMMON_ITEMS if two else AgreementUndefined.NO_PAIRABLE_ITEMS
    if q < 2:
        return NAN, AgreementUndefined.FEWER_THAN_TWO_CATEGORIES
    # pi_k = mean over the items rated at least once of r_ik / r_i; each rating of item i weighs 1 / r_i.
    rated = r >= 1
    weight = np.broadcast_to(1.0 / np.maximum(r, 1), codes.shape)
    pi = np.bincount(codes[valid], weights=weight[valid], minlength=q) / rated.sum()
    pe = float((pi * (1 - pi)).sum() / (q - 1))
    return as_float((pa - pe) / (1 - pe)), None


# Gwet's AC1: hand-written (no maintained library), two-rater and handbook multi-rater formulas.
def gwet_ac1(data: object, categories: Sequence | None = None) -> float:
    """Gwet's AC1: (p_a - p_e) / (1 - p_e) with p_e = sum_k pi_k (1 - pi_k) / (q - 1).

    q is ``len(categories)`` when given (categories nobody used count), else the number of labels used in any
    rating. Missing cells follow Gwet's handbook (4th ed.), for two raters as for more: p_a is the mean over the
    items rated by at least two raters of sum_k r_ik (r_ik - 1) / (r_i (r_i - 1)); pi_k the mean over the items
    rated by at least one of r_ik / r_i, so a rating next to a missing cell still counts in chance agreement.
    Two raters with no missing cell: the same value as Gwet's (2008) two-rater formula on the table.
    Unlike kappa, AC1 stays defined when everyone used one category, as long as q >= 2 (it is then 1).

    NaN when no item has two ratings or q < 2.
    """
    return _compute_ac1(_prepare_ac1(data, categories))[0]


SPECS = (MeasureSpec("gwet_ac1", _prepare_ac1, _compute_ac1, _batch_ac1),)
