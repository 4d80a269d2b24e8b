"""Undefined cases return NaN with a reason, and never leak a warning or an exception."""

import math
import warnings

import pytest

from annotator.agreement import (
    AgreementUndefined,
    bennett_s,
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_ci,
    confusion_matrix,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_masi,
    landis_koch_band,
    per_category_agreement,
    percent_agreement,
    scott_pi,
    why_undefined,
)


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


CHANCE_CORRECTED = {
    "cohen_kappa": cohen_kappa,
    "scott_pi": scott_pi,
    "bennett_s": bennett_s,
    "gwet_ac1": gwet_ac1,
    "fleiss_kappa": fleiss_kappa,
    "krippendorff_alpha": krippendorff_alpha,
}
ALL = {**CHANCE_CORRECTED, "percent_agreement": percent_agreement}

CASES = {
    "no rows": [],
    "empty rows": [[], []],
    "all missing": [[None, None, None], [None, None, None]],
    "no item labelled by both": [["a", None, "b"], [None, "a", None]],
    "single category": [["a"] * 5, ["a"] * 5],
    "single category with gaps": [["a", "a", None, "a"], ["a", None, "a", "a"]],
    "one item": [["a"], ["a"]],
}
# Percent agreement needs no chance correction: one category or one item is still 100% agreement.
DEFINED = {("percent_agreement", "single category"), ("percent_agreement", "single category with gaps")}
DEFINED |= {("percent_agreement", "one item")}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ALL)
def test_nan_with_a_reason(name, case):
    value = ALL[name](CASES[case])
    reason = why_undefined(name, CASES[case])
    if (name, case) in DEFINED:
        assert value == 1.0 and reason is None
    else:
        assert math.isnan(value)
        assert isinstance(reason, AgreementUndefined) and reason
        assert why_undefined(ALL[name], CASES[case]) == reason


def test_reasons_name_the_cause():
    assert why_undefined("cohen_kappa", []) == AgreementUndefined.NO_DATA
    assert why_undefined("cohen_kappa", CASES["all missing"]) == AgreementUndefined.NO_COMMON_ITEMS
    assert why_undefined("cohen_kappa", CASES["single category"]) == AgreementUndefined.ONE_CATEGORY
    assert why_undefined("gwet_ac1", CASES["single category"]) == AgreementUndefined.FEWER_THAN_TWO_CATEGORIES
    assert why_undefined("krippendorff_alpha", [["a", "b"]]) == AgreementUndefined.TOO_FEW_RATERS
    assert why_undefined("krippendorff_alpha", [["a", None], [None, "b"]]) == AgreementUndefined.NO_PAIRABLE_ITEMS
    assert why_undefined("fleiss_kappa", [["a", None], [None, "b"]]) == AgreementUndefined.NO_COMPLETE_ITEMS
    assert "same category" in AgreementUndefined.ONE_CATEGORY
    assert why_undefined("cohen_kappa", [["a", "b"], ["a", "b"]]) is None


def test_ac1_with_declared_categories_is_defined_on_one_used_category():
    # AC1's chance agreement is 0 when everyone uses one of q >= 2 categories: no paradox, AC1 = 1.
    assert gwet_ac1(CASES["single category"], categories=["a", "b"]) == 1.0
    assert bennett_s(CASES["single category"], categories=["a", "b"]) == 1.0
    assert math.isnan(cohen_kappa(CASES["single category"], categories=["a", "b"]))


def test_multi_rater_undefined_cases():
    three = [["a", "a"], ["a", "a"], ["a", "a"]]
    for measure in (fleiss_kappa, krippendorff_alpha, gwet_ac1):
        assert math.isnan(measure(three))
    assert math.isnan(gwet_ac1([["a", None], [None, "b"], [None, None]]))
    assert math.isnan(fleiss_kappa([["a", "b"]]))
    assert math.isnan(fleiss_kappa_from_counts([]))
    assert math.isnan(fleiss_kappa_from_counts([[3, 0], [3, 0]]))
    assert math.isnan(fleiss_kappa_from_counts([[1, 0], [0, 1]]))


def test_weighted_kappa_undefined():
    assert math.isnan(cohen_kappa([[1, 1], [1, 1]], weights="linear"))
    assert math.isnan(cohen_kappa([[1, 1], [1, 1]], weights="quadratic", categories=[1, 2, 3]))
    assert math.isnan(cohen_kappa([[], []], weights="linear", categories=[1, 2]))


def test_alpha_levels_and_masi_undefined():
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert math.isnan(krippendorff_alpha([[2, 2, None], [2, 2, 3]], level=level))
    assert krippendorff_alpha_masi([[{"a"}, {"a", "b"}], [{"a"}, {"a", "b"}]]) == 1.0
    assert math.isnan(krippendorff_alpha_masi([[{"a", "b"}, {"a", "b"}], [{"a", "b"}, {"b", "a"}]]))
    assert math.isnan(krippendorff_alpha_masi([[{"a"}, None], [None, {"a"}]]))
    assert math.isnan(krippendorff_alpha_masi([]))


def test_kappa_ci_is_all_nan_with_the_reason():
    for case in ("no rows", "all missing", "single category", "one item"):
        ci = cohen_kappa_ci(CASES[case])
        assert all(math.isnan(x) for x in (ci.kappa, ci.se, ci.low, ci.high, ci.se_h0, ci.z))
        assert ci.reason is not None


def test_kappa_ci_at_perfect_agreement_has_zero_width():
    ci = cohen_kappa_ci([["a", "b", "a"], ["a", "b", "a"]])
    assert (ci.kappa, ci.se, ci.low, ci.high) == (1.0, 0.0, 1.0, 1.0)
    assert ci.reason is None and ci.n == 3


@pytest.mark.parametrize("case", ["no rows", "all missing", "single category", "one item"])
def test_bootstrap_of_an_undefined_measure(case):
    result = bootstrap_ci(cohen_kappa, CASES[case], n_resamples=20)
    assert math.isnan(result.estimate) and math.isnan(result.low) and math.isnan(result.high)
    assert result.reason is not None


def test_bootstrap_counts_undefined_resamples():
    # Two items, one per category: resamples that repeat one item have kappa undefined; they are left out.
    result = bootstrap_ci(cohen_kappa, [["a", "b"], ["a", "b"]], n_resamples=200)
    assert result.estimate == 1.0 and 0 < result.n_undefined < 200
    assert result.low == result.high == 1.0 and result.reason is None


def test_bootstrap_when_every_resample_is_undefined():
    original = [list("abcdefgh"), list("abcdefgh")]

    def only_on_the_original(data):  # defined on the data, NaN on (almost surely) every resample
        return 0.5 if data == original else math.nan

    result = bootstrap_ci(only_on_the_original, original, n_resamples=10)
    assert result.estimate == 0.5 and result.n_undefined == 10
    assert math.isnan(result.low) and result.reason == AgreementUndefined.ALL_RESAMPLES_UNDEFINED


def test_tables_on_empty_and_missing_data():
    assert confusion_matrix([]) == ([], [])
    assert confusion_matrix(CASES["all missing"]) == ([], [])
    assert confusion_matrix(CASES["all missing"], categories=["a", "b"]) == (["a", "b"], [[0, 0], [0, 0]])
    assert per_category_agreement(CASES["all missing"]) == {}
    rows = per_category_agreement(CASES["all missing"], categories=["a", "b"])
    assert all(math.isnan(r.kappa) and math.isnan(r.specific_agreement) and r.reason for r in rows.values())
    unused = per_category_agreement(CASES["single category"], categories=["a", "b"])
    assert math.isnan(unused["b"].kappa) and math.isnan(unused["b"].specific_agreement)
    assert unused["a"].specific_agreement == 1.0 and math.isnan(unused["a"].kappa)


@pytest.mark.parametrize(
    ("kappa", "band"),
    [
        (-0.1, "poor"),
        (0.0, "slight"),
        (0.2, "slight"),
        (0.1 + 0.1, "slight"),
        (0.205, "fair"),
        (0.4, "fair"),
        (0.41, "moderate"),
        (0.6, "moderate"),
        (0.61, "substantial"),
        (0.8, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
        (math.nan, "undefined"),
    ],
)
def test_landis_koch_band(kappa, band):
    assert landis_koch_band(kappa) == band
