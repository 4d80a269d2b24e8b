"""The report's integer-coded measures give exactly what the public measures give on the same labels."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.agreement import (
    cohen_kappa,
    cohen_kappa_ci,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_masi,
    landis_koch_band,
    percent_agreement,
)
from annotator.services.agreement.measures import MISSING, measure_row, trend_value


def rows_of(matrix: np.ndarray, sets=None) -> list[list]:
    """The public functions' input: rater rows of labels, None where missing."""
    return [[None if v < 0 else (sets[v] if sets is not None else int(v)) for v in row] for row in matrix.tolist()]


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a == pytest.approx(b, rel=1e-12, abs=1e-12)


def none_if_nan(x: float):
    return None if math.isnan(x) else x


matrices = st.integers(min_value=2, max_value=3).flatmap(
    lambda raters: st.lists(
        st.lists(st.integers(min_value=-1, max_value=4), min_size=raters, max_size=raters), min_size=0, max_size=40
    )
)


@settings(max_examples=150, deadline=None)
@given(matrices, st.integers(min_value=0, max_value=50))
def test_single_valued_figures_equal_the_public_measures(columns, offset):
    every = np.array(columns, dtype=np.int64).T.reshape(len(columns[0]) if columns else 2, len(columns))
    every = np.where(every >= 0, every + offset, MISSING)  # category ids anywhere, 0 included
    pair = every[:2]
    row = measure_row(pair, every)
    pair_rows, all_rows = rows_of(pair), rows_of(every)
    ci = cohen_kappa_ci(pair_rows)
    assert row["n"] == sum(1 for a, b in zip(*pair_rows, strict=True) if a is not None and b is not None)
    assert same(row["percent"], none_if_nan(percent_agreement(pair_rows)))
    for key, value in (("kappa", ci.kappa), ("se", ci.se)):
        assert same(row[key], none_if_nan(value)), key
    if row["ci_estimable"]:
        assert same(row["low"], none_if_nan(ci.low)) and same(row["high"], none_if_nan(ci.high))
        assert ci.high - ci.low > 0
    else:  # undefined, or of zero width: "not estimable", never printed as "1.00 - 1.00"
        assert row["low"] is None and row["high"] is None and row["ci_note"].startswith("not estimable")
        assert math.isnan(ci.low) or ci.high == ci.low
    assert same(row["alpha"], none_if_nan(krippendorff_alpha(all_rows)))
    assert same(row["ac1"], none_if_nan(gwet_ac1(all_rows)))
    assert row["band"] == landis_koch_band(ci.kappa)
    assert row["undefined"] == str(ci.reason or "")
    assert same(none_if_nan(trend_value(pair, every)), none_if_nan(cohen_kappa(pair_rows)))


SETS = [frozenset(), frozenset({3}), frozenset({3, 5}), frozenset({5}), frozenset({7, 3}), frozenset({0})]


@settings(max_examples=100, deadline=None)
@given(matrices)
def test_set_valued_figures_equal_the_public_measures(columns):
    every = np.array(columns, dtype=np.int64).T.reshape(len(columns[0]) if columns else 2, len(columns))
    every = np.where(every >= 0, every % len(SETS), MISSING)
    pair = every[:2]
    row = measure_row(pair, every, sets=SETS)
    pair_rows, all_rows = rows_of(pair, SETS), rows_of(every, SETS)
    assert same(row["exact_set"], none_if_nan(percent_agreement(pair_rows)))
    assert same(row["alpha"], none_if_nan(krippendorff_alpha_masi(all_rows)))
    assert same(none_if_nan(trend_value(pair, every, sets=SETS)), none_if_nan(krippendorff_alpha_masi(all_rows)))
    assert row["kappa"] is None and row["gate_measure"] == "alpha_masi"


def test_no_raters_and_no_issues_are_undefined_not_a_crash():
    empty_pair, no_raters = np.empty((2, 0), dtype=np.int64), np.empty((0, 0), dtype=np.int64)
    row = measure_row(empty_pair, no_raters)
    assert row["n"] == 0 and row["kappa"] is None and row["alpha"] is None and row["undefined"]
    assert measure_row(empty_pair, no_raters, sets=SETS)["alpha"] is None
