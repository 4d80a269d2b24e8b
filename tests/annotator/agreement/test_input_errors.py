"""Malformed input raises ValueError with a message that names the problem."""

import functools

import pytest

from annotator.agreement import (
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
    masi_distance,
    per_category_agreement,
    percent_agreement,
    scott_pi,
    why_undefined,
)

TWO_RATER_ONLY = [cohen_kappa, cohen_kappa_ci, scott_pi, bennett_s, confusion_matrix, per_category_agreement]
ALL = [*TWO_RATER_ONLY, percent_agreement, fleiss_kappa, gwet_ac1, krippendorff_alpha]


@pytest.mark.parametrize("measure", ALL, ids=lambda m: m.__name__)
def test_rows_of_unequal_length(measure):
    with pytest.raises(ValueError, match=r"unequal lengths \(row 0 has 3, row 1 has 2\)"):
        measure([["a", "b", "a"], ["a", "b"]])


@pytest.mark.parametrize("measure", TWO_RATER_ONLY, ids=lambda m: m.__name__)
def test_two_rater_measure_given_three_rows(measure):
    with pytest.raises(ValueError, match="takes exactly 2 rater rows, got 3"):
        measure([["a"], ["a"], ["b"]])


@pytest.mark.parametrize("measure", TWO_RATER_ONLY, ids=lambda m: m.__name__)
def test_two_rater_measure_given_one_row(measure):
    with pytest.raises(ValueError, match="takes exactly 2 rater rows, got 1"):
        measure([["a", "b"]])


@pytest.mark.parametrize("measure", ALL, ids=lambda m: m.__name__)
def test_label_not_in_categories(measure):
    with pytest.raises(ValueError, match=r"label\(s\) 'c' not in the given categories \['a', 'b'\]"):
        measure([["a", "b", "c"], ["a", "b", "b"]], categories=["a", "b"])


@pytest.mark.parametrize(
    "data",
    ["ab", {"r1": ["a"]}, 3, [["a", "b"], "ab"], [["a"], 3]],
    ids=["string", "dict", "int", "row-string", "row-int"],
)
def test_data_that_is_not_rater_rows(data):
    with pytest.raises(ValueError, match=r"must be a (list of rater rows|sequence of labels)"):
        cohen_kappa(data)


def test_unhashable_label():
    with pytest.raises(ValueError, match=r"label \['a'\] in rater row 0 is not hashable"):
        cohen_kappa([[["a"]], ["a"]])


def test_bad_categories():
    with pytest.raises(ValueError, match="categories contain duplicates: 'a'"):
        cohen_kappa([["a"], ["a"]], categories=["a", "b", "a"])
    with pytest.raises(ValueError, match="must not contain None"):
        cohen_kappa([["a"], ["a"]], categories=["a", None])
    with pytest.raises(ValueError, match="categories must be an ordered list"):
        cohen_kappa([["a"], ["a"]], categories="ab")


def test_unknown_weights():
    with pytest.raises(ValueError, match="unknown weights 'cubic'; expected None, 'linear' or 'quadratic'"):
        cohen_kappa([[1, 2], [1, 2]], weights="cubic")


def test_weighted_kappa_needs_an_order_for_text_labels():
    with pytest.raises(ValueError, match="linear weighting needs ordered categories"):
        cohen_kappa([["low", "high"], ["low", "low"]], weights="linear")
    assert cohen_kappa([["low", "high"], ["low", "low"]], weights="linear", categories=["low", "high"]) == 0.0


def test_unknown_level():
    with pytest.raises(ValueError, match="unknown level 'cardinal'; expected one of nominal, ordinal, interval, ratio"):
        krippendorff_alpha([[1, 2], [1, 2]], level="cardinal")


def test_alpha_levels_need_suitable_labels():
    with pytest.raises(ValueError, match="the interval level needs numeric labels, got 'a'"):
        krippendorff_alpha([["a", "b"], ["a", "b"]], level="interval")
    with pytest.raises(ValueError, match="the ordinal level needs ordered categories"):
        krippendorff_alpha([["a", "b"], ["a", "b"]], level="ordinal")
    with pytest.raises(ValueError, match="give either level or distance"):
        krippendorff_alpha([[1, 2], [1, 2]], level="interval", distance=lambda a, b: 1.0)
    with pytest.raises(ValueError, match="distance must return finite, non-negative numbers"):
        krippendorff_alpha([[1, 2], [1, 2]], distance=lambda a, b: -1.0)


def test_set_labels():
    with pytest.raises(ValueError, match="must be a set of labels, got 'ab'"):
        krippendorff_alpha_masi([["ab"], [{"a"}]])
    with pytest.raises(ValueError, match="must be a set of labels"):
        masi_distance("ab", {"a"})
    with pytest.raises(ValueError, match="unequal lengths"):
        krippendorff_alpha_masi([[{"a"}], []])


def test_fleiss_counts():
    with pytest.raises(ValueError, match=r"same number of ratings, got \[2, 3\]"):
        fleiss_kappa_from_counts([[2, 0], [1, 2]])
    with pytest.raises(ValueError, match="non-negative integers"):
        fleiss_kappa_from_counts([[2, -1], [1, 0]])
    with pytest.raises(ValueError, match="2-D table of counts"):
        fleiss_kappa_from_counts([1, 2, 3])


def test_confidence_levels():
    with pytest.raises(ValueError, match="level must be a confidence level strictly between 0 and 1, got 95"):
        cohen_kappa_ci([["a", "b"], ["a", "b"]], level=95)
    with pytest.raises(ValueError, match=r"level must be strictly between 0 and 1, got 1\.5"):
        bootstrap_ci(cohen_kappa, [["a", "b"], ["a", "b"]], level=1.5)
    with pytest.raises(ValueError, match=r"functools.partial\(krippendorff_alpha, level='ordinal'\)"):
        bootstrap_ci(krippendorff_alpha, [[1, 2], [1, 2]], level="ordinal")


def test_bootstrap_arguments():
    data = [["a", "b"], ["a", "b"]]
    with pytest.raises(ValueError, match="n_resamples must be a positive integer, got 0"):
        bootstrap_ci(cohen_kappa, data, n_resamples=0)
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got -1"):
        bootstrap_ci(cohen_kappa, data, seed=-1)
    with pytest.raises(ValueError, match="unknown measure 'kappa'"):
        bootstrap_ci("kappa", data)
    with pytest.raises(ValueError, match="takes exactly 2 rater rows"):
        bootstrap_ci(functools.partial(cohen_kappa, weights=None), [["a"], ["a"], ["a"]])


def test_why_undefined_arguments():
    with pytest.raises(ValueError, match="unknown measure 'alpha'"):
        why_undefined("alpha", [[1], [1]])
    with pytest.raises(ValueError, match="knows only the package's measures"):
        why_undefined(len, [[1], [1]])
    with pytest.raises(ValueError, match="unequal lengths"):
        why_undefined("cohen_kappa", [[1], []])
