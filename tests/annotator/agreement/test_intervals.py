"""Confidence intervals stay inside the measures' range [-1, 1]: the Wald interval is clipped, the bootstrap is not
needed to be (its ends are values the measure took)."""

import functools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.agreement import (
    CHANCE_CORRECTED_RANGE,
    bennett_s,
    bootstrap_ci,
    clip_interval,
    cohen_kappa,
    cohen_kappa_ci,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_masi,
    scott_pi,
)

# Six issues, three categories, one disagreement: kappa 0.75, Wald interval 0.32 .. 1.18 (the browser test's case).
SIX_ISSUES = [["a", "a", "b", "b", "c", "c"], ["a", "a", "b", "b", "b", "c"]]

CHANCE_CORRECTED = {
    "cohen_kappa": cohen_kappa,
    "cohen_kappa_linear": functools.partial(cohen_kappa, weights="linear", categories=list("abc")),
    "scott_pi": scott_pi,
    "bennett_s": bennett_s,
    "gwet_ac1": gwet_ac1,
    "fleiss_kappa": fleiss_kappa,
    "krippendorff_alpha": krippendorff_alpha,
}

labels = st.sampled_from("abc")
pairs = st.lists(st.tuples(labels, labels), min_size=1, max_size=12)


def test_the_wald_interval_of_a_small_sample_is_clipped_at_one():
    ci = cohen_kappa_ci(SIX_ISSUES)
    assert ci.kappa == pytest.approx(0.75)
    assert (ci.low_unclipped, ci.high_unclipped) == (pytest.approx(0.3237, abs=1e-4), pytest.approx(1.1763, abs=1e-4))
    assert (ci.low, ci.high) == (pytest.approx(0.3237, abs=1e-4), 1.0)
    assert ci.clipped is True


def test_an_interval_inside_the_range_is_left_as_it_is():
    table_rows = [["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15, ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15]
    ci = cohen_kappa_ci(table_rows)
    assert ci.clipped is False
    assert (ci.low, ci.high) == (ci.low_unclipped, ci.high_unclipped)
    assert (ci.low, ci.high) == (pytest.approx(0.1511, abs=1e-4), pytest.approx(0.6489, abs=1e-4))


def test_an_undefined_interval_is_nan_and_not_clipped():
    ci = cohen_kappa_ci([["a", "a"], ["a", "a"]])
    assert math.isnan(ci.low) and math.isnan(ci.high) and math.isnan(ci.high_unclipped)
    assert ci.clipped is False


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0.32, 1.18, (0.32, 1.0, True)),
        (-1.3, 0.1, (-1.0, 0.1, True)),
        (-1.5, 1.5, (-1.0, 1.0, True)),
        (-0.2, 0.9, (-0.2, 0.9, False)),
        (-1.0, 1.0, (-1.0, 1.0, False)),
    ],
)
def test_clip_interval(low, high, expected):
    assert clip_interval(low, high) == expected


def test_clip_interval_keeps_nan_and_refuses_reversed_bounds():
    low, high, clipped = clip_interval(math.nan, math.nan)
    assert math.isnan(low) and math.isnan(high) and clipped is False
    with pytest.raises(ValueError, match="lower <= upper"):
        clip_interval(0.0, 0.5, bounds=(1.0, -1.0))


@settings(max_examples=200, deadline=None)
@given(pairs, st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_the_reported_kappa_interval_never_leaves_minus_one_to_one(pair_list, level):
    ci = cohen_kappa_ci([[a for a, _ in pair_list], [b for _, b in pair_list]], level=level)
    if math.isnan(ci.kappa):
        return
    lower, upper = CHANCE_CORRECTED_RANGE
    assert lower <= ci.low <= ci.kappa <= ci.high <= upper
    assert ci.clipped == (ci.low_unclipped < lower or ci.high_unclipped > upper)


@pytest.mark.parametrize("name", sorted(CHANCE_CORRECTED))
@pytest.mark.parametrize("data", [SIX_ISSUES, [["a", "a", "b"], ["a", "a", "b"]], [["a", "b", "a"], ["b", "a", "b"]]])
def test_bootstrap_percentile_intervals_are_inside_the_range_already(name, data):
    result = bootstrap_ci(CHANCE_CORRECTED[name], data, n_resamples=300, seed=3)
    if math.isnan(result.low):
        return
    lower, upper = CHANCE_CORRECTED_RANGE
    assert lower <= result.low <= result.high <= upper, (name, result)


@settings(max_examples=40, deadline=None)
@given(pairs, st.sampled_from(sorted(CHANCE_CORRECTED)))
def test_bootstrap_intervals_stay_inside_the_range_on_any_small_sample(pair_list, name):
    data = [[a for a, _ in pair_list], [b for _, b in pair_list]]
    result = bootstrap_ci(CHANCE_CORRECTED[name], data, n_resamples=50, seed=0)
    if not math.isnan(result.low):
        assert -1.0 <= result.low <= result.high <= 1.0


def test_bootstrap_of_alpha_with_masi_stays_inside_the_range():
    sets = [[{"a"}, {"a", "b"}, {"c"}, set()], [{"a"}, {"b"}, {"c"}, {"a"}]]
    result = bootstrap_ci(krippendorff_alpha_masi, sets, n_resamples=200, seed=1)
    assert -1.0 <= result.low <= result.high <= 1.0
