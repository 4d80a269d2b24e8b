"""Invariants of the agreement measures (hypothesis), and the hand-written paths against the libraries."""

import functools
import math
from dataclasses import astuple

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats import inter_rater

from annotator.agreement import alpha as alpha_module
from annotator.agreement import (
    bennett_s,
    bootstrap_ci,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_masi,
    masi_distance,
    per_category_agreement,
    percent_agreement,
    scott_pi,
)
from annotator.agreement import bootstrap as bootstrap_module
from annotator.agreement._input import encode
from annotator.agreement._registry import SPECS

LABELS = "abcde"
TWO_RATER = {
    "percent_agreement": percent_agreement,
    "cohen_kappa": cohen_kappa,
    "scott_pi": scott_pi,
    "bennett_s": bennett_s,
    "gwet_ac1": gwet_ac1,
    "krippendorff_alpha": krippendorff_alpha,
    "fleiss_kappa": fleiss_kappa,
}
SYMMETRIC = {
    **TWO_RATER,
    "cohen_kappa_linear": functools.partial(cohen_kappa, weights="linear", categories=list(LABELS)),
}

labels = st.sampled_from(LABELS)
pairs = st.lists(st.tuples(labels, labels), min_size=1, max_size=40)
maybe = st.one_of(st.none(), labels)


def rows(pair_list):
    return [[a for a, _ in pair_list], [b for _, b in pair_list]]


def same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=1e-9, abs=1e-12)


# --- perfect agreement, relabelling, rater order, missing cells ---


@settings(deadline=None)
@given(st.lists(labels, min_size=2, max_size=40), st.integers(2, 5))
def test_perfect_agreement_is_one(item_labels, n_raters):
    assume(len(set(item_labels)) >= 2)
    data = [list(item_labels)] * 2
    for name, measure in SYMMETRIC.items():
        assert measure(data) == pytest.approx(1.0), name
    many = [list(item_labels)] * n_raters
    for measure in (percent_agreement, gwet_ac1, krippendorff_alpha, fleiss_kappa):
        assert measure(many) == pytest.approx(1.0)
    assert krippendorff_alpha_masi([[{x} for x in item_labels]] * n_raters) == pytest.approx(1.0)


@settings(deadline=None)
@given(pairs, st.permutations(range(len(LABELS))))
def test_relabelling_by_a_bijection_changes_nothing(pair_list, permutation):
    # Map letters to other objects (ints in a shuffled order) so the sorted category order changes too.
    rename = {letter: 100 + permutation[i] for i, letter in enumerate(LABELS)}
    data = rows(pair_list)
    renamed = [[rename[x] for x in row] for row in data]
    for name, measure in TWO_RATER.items():
        assert same(measure(data), measure(renamed)), name


@settings(deadline=None)
@given(pairs)
def test_swapping_the_raters_changes_nothing(pair_list):
    first, second = rows(pair_list)
    for name, measure in SYMMETRIC.items():
        assert same(measure([first, second]), measure([second, first])), name


@settings(deadline=None)
@given(pairs, st.lists(st.tuples(maybe, maybe).filter(lambda p: None in p), max_size=20), st.randoms())
def test_items_with_a_missing_cell_are_ignored_by_two_rater_measures(pair_list, partial, random):
    # Also true of alpha (a unit with one value is not pairable) and Fleiss' kappa (complete items only), but
    # not of AC1: as in Gwet's handbook, a lone rating counts in chance agreement (test_gwet_handbook.py).
    cells = list(pair_list) + list(partial)
    random.shuffle(cells)
    for name, measure in SYMMETRIC.items():
        if name != "gwet_ac1":
            assert same(measure(rows(pair_list)), measure(rows(cells))), name


# --- the hand-written and vectorised paths against the libraries ---


@settings(deadline=None)
@given(pairs, st.sampled_from([None, "linear", "quadratic"]))
def test_batch_kappa_matches_statsmodels(pair_list, weights):
    data = rows(pair_list)
    spec = SPECS["cohen_kappa"]
    coded = spec.prepare(data, weights=weights, categories=list(LABELS))
    table = np.bincount(coded.codes[0] * 5 + coded.codes[1], minlength=25).reshape(5, 5)
    fast = spec.batch(table[None], coded)[0]
    row, col = table.sum(1), table.sum(0)
    if int(row @ col) == table.sum() ** 2:
        assert math.isnan(fast)
    else:
        assert fast == pytest.approx(inter_rater.cohens_kappa(table, wt=weights, return_results=False), abs=1e-12)


@settings(deadline=None)
@given(pairs)
def test_scott_pi_is_fleiss_kappa_for_two_raters(pair_list):
    data = rows(pair_list)
    pi = scott_pi(data)
    coded = encode(data, "test")
    assume(coded.k >= 2)
    counts = np.array([[row.count(c) for c in coded.categories] for row in zip(*data, strict=True)])
    assert pi == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)
    assert pi == pytest.approx(fleiss_kappa(data), abs=1e-12)


reliability = st.integers(2, 5).flatmap(
    lambda r: st.lists(
        st.lists(st.one_of(st.none(), st.integers(1, 6)), min_size=r, max_size=r), min_size=1, max_size=30
    )
)


@settings(max_examples=150, deadline=None)
@given(reliability, st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_vectorised_alpha_matches_the_krippendorff_package(units, level):
    data = [list(r) for r in zip(*units, strict=True)]
    coded = alpha_module.prepare_alpha(data, level=level)
    codes = coded.codes
    m = (codes >= 0).sum(axis=0)
    assume((m >= 2).any() and len(set(codes[:, m >= 2].ravel()) - {-1}) >= 2)
    values = coded.options["values"]
    own, _ = alpha_module._alpha_own(codes, coded.k, level, values)
    reference = krippendorff.alpha(
        reliability_data=[[np.nan if v is None else v for v in row] for row in data], level_of_measurement=level
    )
    assert own == pytest.approx(reference, abs=1e-9)
    assert krippendorff_alpha(data, level=level) == pytest.approx(reference, abs=1e-9)


def test_large_inputs_take_the_vectorised_alpha_path(monkeypatch):
    rng = np.random.default_rng(3)
    data = [list(rng.integers(0, 4, 300)), list(rng.integers(0, 4, 300)), list(rng.integers(0, 4, 300))]
    data[2][:50] = [None] * 50
    expected = krippendorff_alpha(data, level="ordinal")
    monkeypatch.setattr(alpha_module, "PACKAGE_MAX_CELLS", 0)
    monkeypatch.setattr(alpha_module, "_alpha_package", None)  # would raise if called
    assert krippendorff_alpha(data, level="ordinal") == pytest.approx(expected, abs=1e-12)


@settings(deadline=None)
@given(st.lists(st.tuples(st.frozensets(labels, max_size=3), st.frozensets(labels, max_size=3)), min_size=1))
def test_masi_alpha_equals_alpha_with_the_masi_distance(set_pairs):
    data = [[a for a, _ in set_pairs], [b for _, b in set_pairs]]
    assert same(krippendorff_alpha_masi(data), krippendorff_alpha(data, distance=masi_distance))


@settings(deadline=None)
@given(st.frozensets(labels), st.frozensets(labels))
def test_masi_is_a_symmetric_distance_in_0_1(a, b):
    d = masi_distance(a, b)
    assert 0.0 <= d <= 1.0
    assert d == masi_distance(b, a)
    assert (d == 0.0) == (a == b)


@settings(deadline=None)
@given(pairs)
def test_per_category_kappa_is_kappa_of_the_collapsed_labels(pair_list):
    data = rows(pair_list)
    result = per_category_agreement(data, categories=list(LABELS))
    for cat, row in result.items():
        collapsed = [[x == cat for x in r] for r in data]
        assert same(row.kappa, cohen_kappa(collapsed, categories=[False, True]))
        both = sum(a == b == cat for a, b in pair_list)
        total = row.n_first + row.n_second
        assert same(row.specific_agreement, 2 * both / total if total else math.nan)


def test_multi_rater_percent_agreement_is_the_mean_pairwise_agreement():
    data = [["a", "a", "b", None], ["a", "b", "b", "c"], ["a", "b", None, None]]
    # item 1: 3/3 pairs agree; item 2: 1/3; item 3: 1/1; item 4: one value, not pairable.
    assert percent_agreement(data) == pytest.approx((1 + 1 / 3 + 1) / 3)


# --- bootstrap ---


def realistic(seed: int, n: int = 300, k: int = 4, agreement: float = 0.75) -> list[list]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < agreement, a, rng.integers(0, k, n))
    first, second = [f"c{x}" for x in a], [f"c{x}" for x in b]
    for i in rng.choice(n, n // 20, replace=False):
        second[i] = None
    return [first, second]


@settings(max_examples=20, deadline=None)
@given(pairs, st.integers(0, 2**32 - 1), st.sampled_from(sorted(TWO_RATER)))
def test_bootstrap_is_reproducible_with_the_seed(pair_list, seed, name):
    data = rows(pair_list)
    first = astuple(bootstrap_ci(name, data, n_resamples=50, seed=seed))
    again = astuple(bootstrap_ci(name, data, n_resamples=50, seed=seed))
    assert all(a == b or (a != a and b != b) for a, b in zip(first, again, strict=True))  # NaN == NaN here


def test_bootstrap_differs_for_another_seed():
    data = realistic(1)
    one, other = bootstrap_ci(cohen_kappa, data, seed=1), bootstrap_ci(cohen_kappa, data, seed=2)
    assert one.estimate == other.estimate
    assert (one.low, one.high) != (other.low, other.high)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "measure",
    [
        percent_agreement,
        cohen_kappa,
        scott_pi,
        bennett_s,
        gwet_ac1,
        krippendorff_alpha,
        fleiss_kappa,
        functools.partial(cohen_kappa, weights="linear", categories=["c0", "c1", "c2", "c3"]),
    ],
    ids=lambda m: getattr(m, "__name__", "weighted_kappa"),
)
def test_bootstrap_interval_contains_the_estimate(measure, seed):
    result = bootstrap_ci(measure, realistic(seed), n_resamples=300, seed=seed)
    assert result.low <= result.estimate <= result.high
    assert result.high - result.low < 0.3
    assert result.n_undefined == 0 and result.reason is None


@pytest.mark.parametrize("name", ["percent_agreement", "cohen_kappa", "scott_pi", "bennett_s", "gwet_ac1"])
def test_bootstrap_fast_path_equals_the_generic_paths(name):
    spec = SPECS[name]
    data = realistic(7, n=120)
    data = [[x for x, y in zip(*data, strict=True) if y is not None], [y for y in data[1] if y is not None]]
    coded = spec.prepare(data)
    fast = bootstrap_module._fast(spec, coded, np.random.SeedSequence(0), 64)
    loop = bootstrap_module._coded_loop(spec, coded, np.random.SeedSequence(0), 64)
    np.testing.assert_allclose(fast, loop, rtol=1e-12, atol=1e-12)
    # Without missing cells, an arbitrary callable resamples the same items and gets the same interval.
    measure = TWO_RATER[name]
    wrapped = bootstrap_ci(lambda d: measure(d), data, n_resamples=64)
    direct = bootstrap_ci(measure, data, n_resamples=64)
    assert all(same(x, y) for x, y in zip(astuple(wrapped)[:3], astuple(direct)[:3], strict=True))


def test_bootstrap_fast_path_splits_large_tables_like_the_generic_loop(monkeypatch):
    # A small budget forces several bincounts per batch of draws (k^2 = 144 bins per table, 3 tables per call).
    monkeypatch.setattr(bootstrap_module, "BATCH_ELEMENTS", 144 * 3 + 1)
    spec = SPECS["cohen_kappa"]
    coded = spec.prepare(realistic(5, n=100, k=12))
    fast = bootstrap_module._fast(spec, coded, np.random.SeedSequence(0), 50)
    loop = bootstrap_module._coded_loop(spec, coded, np.random.SeedSequence(0), 50)
    np.testing.assert_allclose(fast, loop, rtol=1e-12, atol=1e-12)


def test_bootstrap_uses_threads_without_changing_the_result(monkeypatch):
    data = realistic(11, n=2000)
    threaded = bootstrap_ci(cohen_kappa, data, n_resamples=400)
    monkeypatch.setattr(bootstrap_module, "THREADS_FROM", 0)
    monkeypatch.setattr(bootstrap_module, "BATCH_ELEMENTS", 20_000)
    assert bootstrap_ci(cohen_kappa, data, n_resamples=400) != threaded  # other batches, other streams
    monkeypatch.undo()
    monkeypatch.setattr(bootstrap_module, "THREADS_FROM", 0)
    assert bootstrap_ci(cohen_kappa, data, n_resamples=400) == threaded
    monkeypatch.setattr(bootstrap_module, "THREADS_FROM", 10**18)
    assert bootstrap_ci(cohen_kappa, data, n_resamples=400) == threaded


def test_bootstrap_accepts_partials_and_names():
    data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5], [None, 3, 3, 3, 2, 3, 4, 2, 2, 5]]
    by_partial = bootstrap_ci(functools.partial(krippendorff_alpha, level="ordinal"), data, n_resamples=30)
    by_name = bootstrap_ci("krippendorff_alpha", data, n_resamples=30, level=0.9)
    assert by_partial.estimate == pytest.approx(krippendorff_alpha(data, level="ordinal"))
    assert by_name.estimate == pytest.approx(krippendorff_alpha(data))
    assert by_name.level == 0.9 and by_partial.measure == "krippendorff_alpha"


@settings(deadline=None)
@given(pairs, st.lists(st.tuples(maybe, maybe).filter(lambda p: None in p), max_size=10))
def test_confusion_matrix_counts_the_complete_pairs(pair_list, partial):
    categories, matrix = confusion_matrix(rows(list(pair_list) + list(partial)), categories=list(LABELS))
    assert categories == list(LABELS)
    for i, a in enumerate(LABELS):
        for j, b in enumerate(LABELS):
            assert matrix[i][j] == sum(p == (a, b) for p in pair_list)
    observed, _ = confusion_matrix(rows(pair_list))
    assert observed == sorted({x for p in pair_list for x in p})
