"""Study-level views of two raters' labels: confusion matrix, per-category agreement, Landis & Koch bands."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._input import NAN, AgreementUndefined, complete_pairs, encode, pair_table
from .kappa import ratio_or_nan


# Confusion matrix: one np.bincount of the encoded pairs (hand-written; sklearn is not a dependency).
def confusion_matrix(data: object, categories: Sequence | None = None) -> tuple[list, list[list[int]]]:
    """(categories, matrix) for two raters: ``matrix[i][j]`` counts the items the first rater labelled
    ``categories[i]`` and the second ``categories[j]``. Items either rater skipped are left out; without
    ``categories`` the labels used on the remaining items, sorted."""
    coded = complete_pairs(encode(data, "confusion_matrix", categories, n_raters=2), categories is not None)
    return list(coded.categories), pair_table(coded).tolist()


@dataclass(frozen=True)
class CategoryAgreement:
    """Agreement on one category against all others.

    ``kappa``: Cohen's kappa of the 2x2 table "this category / any other" (NaN when both raters used it on every
    item or on none). ``specific_agreement``: 2 n_cc / (n_first + n_second), the positive specific agreement
    (NaN when neither rater used the category). ``n_first``/``n_second``: how often each rater chose it;
    ``n_both``: on how many items both did.
    """

    category: object
    kappa: float
    specific_agreement: float
    n_first: int
    n_second: int
    n_both: int
    reason: AgreementUndefined | None = None


def per_category_agreement(data: object, categories: Sequence | None = None) -> dict[object, CategoryAgreement]:
    """For each category (in order), one-vs-rest kappa and specific agreement on the items both raters labelled.

    Hand-written: the one-vs-rest kappa of every category comes from the k x k table in one vectorised step
    (equal to ``cohen_kappa`` on the collapsed labels; tested).
    """
    coded = complete_pairs(encode(data, "per_category_agreement", categories, n_raters=2), categories is not None)
    table = pair_table(coded)
    n = int(table.sum())
    both = np.diag(table)
    first, second = table.sum(axis=1), table.sum(axis=0)
    # 2x2 table per category: p_o = (both + neither) / n, p_e = (r s + (n - r)(n - s)) / n^2; times n^2.
    chance = first * second + (n - first) * (n - second)
    kappa = ratio_or_nan(n * (n - first - second + 2 * both) - chance, n * n - chance)
    specific = ratio_or_nan(2 * both, first + second)
    out = {}
    for i, cat in enumerate(coded.categories):
        reason = None
        if n == 0:
            reason = AgreementUndefined.NO_COMMON_ITEMS
        elif np.isnan(kappa[i]):
            reason = AgreementUndefined.ONE_CATEGORY
        out[cat] = CategoryAgreement(
            category=cat,
            kappa=float(kappa[i]) if reason is None else NAN,
            specific_agreement=float(specific[i]),
            n_first=int(first[i]),
            n_second=int(second[i]),
            n_both=int(both[i]),
            reason=reason,
        )
    return out


LANDIS_KOCH = ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"))


def landis_koch_band(kappa: float) -> str:
    """Landis & Koch's (1977) label for a kappa: "poor" (< 0), "slight" (0-0.20), "fair" (0.21-0.40),
    "moderate" (0.41-0.60), "substantial" (0.61-0.80), "almost perfect" (0.81-1.00); "undefined" for NaN.

    Each band runs up to and including its upper limit, so 0.205 is "fair" and 0.20 "slight"; float noise beyond
    12 decimals is ignored (a kappa of 0.20000000000000004 is "slight").
    """
    value = round(float(kappa), 12)
    if math.isnan(value):
        return "undefined"
    if value < 0:
        return "poor"
    for upper, band in LANDIS_KOCH:
        if value <= upper:
            return band
    return "almost perfect"
