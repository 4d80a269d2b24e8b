"""The findings statistics reproduce published worked examples, choose their test by the data and say which."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.findings.statistics import (
    BENJAMINI_HOCHBERG,
    FISHER,
    HOLM,
    MONTE_CARLO,
    StatResult,
    cliffs_delta,
    corrected,
    independence,
    kruskal_wallis,
    mann_whitney,
    pairwise_mann_whitney,
)

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = json.loads((ROOT / "tests/data/statistics/worked_examples.json").read_text())


def _example(kind: str, name: str) -> dict:
    return next(e for e in EXAMPLES[kind] if e["name"] == name)


def test_chi_square_reproduces_agrestis_party_identification_table():
    example = _example("independence", "party identification by gender")
    result = independence(example["table"], subject="gender x party")
    expected, tolerance = example["expected"], example["tolerance"]
    assert result.test == "Pearson's chi-square test of independence"
    assert result.statistic == pytest.approx(expected["statistic"], abs=tolerance["statistic"])
    assert result.df == expected["df"]
    assert result.p == pytest.approx(expected["p"], abs=tolerance["p"])
    assert result.n == 2757
    # Cramér's V = sqrt(X^2 / (n (min(r, c) - 1))) with min(r, c) - 1 = 1.
    assert result.effect_name == "Cramér's V"
    assert result.effect_size == pytest.approx(math.sqrt(30.0701 / 2757), abs=1e-4)
    assert result.magnitude == "small"  # 0.10 <= V < 0.30 for a table with two rows


def test_a_sparse_two_by_two_table_gets_fishers_exact_test_tea_tasting():
    example = _example("independence", "tea tasting")
    result = independence(example["table"])
    assert result.test == "Fisher's exact test (two-sided)"
    assert result.p == pytest.approx(example["expected"]["p"], abs=example["tolerance"]["p"])
    assert result.statistic == pytest.approx(example["expected"]["statistic"])
    assert result.df is None
    assert "4 of 4 cells have an expected count below 5" in result.note


def test_a_sparse_larger_table_gets_a_seeded_monte_carlo_test_that_says_so():
    table = [[3, 0, 1], [0, 4, 1], [1, 1, 6]]
    first = independence(table, seed=7)
    again = independence(table, seed=7)
    assert first.test.startswith("Monte-Carlo chi-square test (9999 random tables")
    assert "seed 7" in first.test and "simulated" in first.note
    assert first.p == again.p  # the seed makes the p-value repeatable
    assert first.df is None
    assert 0 < first.p < 0.05


def test_the_monte_carlo_p_value_matches_rs_documented_simulation():
    """R's chisq.test documents 'around 0.29' by simulation for this table (0.4233 from the corrected formula)."""
    example = _example("independence", "a sparse 2x2 table by simulation")
    result = independence(example["table"], method=MONTE_CARLO, seed=1)
    assert result.test.startswith("Monte-Carlo")
    assert result.p == pytest.approx(example["expected"]["p"], abs=example["tolerance"]["p"])
    assert independence(example["table"]).test == "Pearson's chi-square test of independence"  # not sparse


def test_an_unknown_method_or_fisher_on_a_larger_table_is_refused():
    with pytest.raises(ValueError, match="Unknown method"):
        independence([[1, 2], [3, 4]], method="g-test")
    with pytest.raises(ValueError, match="2x2"):
        independence([[1, 2, 3], [3, 4, 5]], method=FISHER)


def test_a_table_with_one_non_empty_row_is_not_tested_and_says_why():
    result = independence([[3, 4, 5], [0, 0, 0]])
    assert math.isnan(result.p) and not result.defined
    assert "Fewer than two" in result.note


def test_counts_must_be_whole_numbers():
    with pytest.raises(ValueError, match="counts"):
        independence([[1.5, 2], [3, 4]])


def test_kruskal_wallis_reproduces_hollander_and_wolfe():
    example = _example("kruskal_wallis", "mucociliary efficiency")
    result = kruskal_wallis(example["groups"], subject="efficiency")
    assert result.statistic == pytest.approx(example["expected"]["statistic"], abs=example["tolerance"]["statistic"])
    assert result.df == example["expected"]["df"]
    assert result.p == pytest.approx(example["expected"]["p"], abs=example["tolerance"]["p"])
    assert result.n == 14
    # epsilon^2 = H / (n - 1) (Tomczak & Tomczak 2014)
    assert result.effect_size == pytest.approx(0.771429 / 13, abs=1e-6)
    assert result.magnitude == "small"  # 0.0593: at least 0.01, below 0.06


def test_kruskal_wallis_is_undefined_without_two_groups_or_without_variation():
    assert not kruskal_wallis({"a": [1, 2, 3], "b": []}).defined
    same = kruskal_wallis({"a": [5, 5], "b": [5, 5, 5]})
    assert not same.defined and "same" in same.note


def test_mann_whitney_reproduces_the_chorioamnion_example():
    example = _example("mann_whitney", "permeability constants of the human chorioamnion")
    result = mann_whitney(example["a"], example["b"])
    assert result.statistic == example["expected"]["statistic"]
    assert result.p == pytest.approx(example["expected"]["p_two_sided"], abs=example["tolerance"]["p"])
    assert result.test == "Mann–Whitney U test (two-sided, exact)"
    assert result.effect_size == pytest.approx(2 * 35 / 50 - 1)  # Cliff's delta from U
    assert result.magnitude == "medium"  # 0.4: Romano et al. 0.33 <= |d| < 0.474


@pytest.mark.parametrize("name", ["small differences", "negligible differences", "non-overlapping samples"])
def test_cliffs_delta_reproduces_the_effsize_examples(name):
    example = _example("cliffs_delta", name)
    expected = example["expected"]
    assert cliffs_delta(example["a"], example["b"]) == pytest.approx(
        expected["delta"], abs=example["tolerance"]["delta"]
    )
    result = mann_whitney(example["a"], example["b"])
    assert result.effect_size == pytest.approx(expected["delta"], abs=example["tolerance"]["delta"])
    assert result.magnitude == expected["magnitude"]
    assert "normal approximation" in result.test  # the samples have ties


@pytest.mark.parametrize(
    ("method", "key"), [(HOLM, "rejected_holm"), (BENJAMINI_HOCHBERG, "rejected_benjamini_hochberg")]
)
def test_corrections_reject_what_benjamini_and_hochberg_report(method, key):
    example = _example("multiple_testing", "fifteen p-values of a clinical trial")
    results = [StatResult(f"t{i}", "t", 10, 1.0, None, p, "", 0.0, "") for i, p in enumerate(example["p"])]
    adjusted = corrected(results, method=method)
    rejected = sum(1 for r in adjusted if r.p_corrected <= example["alpha"])
    assert rejected == example["expected"][key]
    assert all(r.p_corrected >= r.p for r in adjusted)
    assert adjusted[0].correction.endswith("over 15 tests")


def test_undefined_results_stay_out_of_the_family():
    results = [
        StatResult("a", "t", 10, 1.0, None, 0.01, "", 0.0, ""),
        StatResult("b", "t", 0, float("nan"), None, float("nan"), "", float("nan"), ""),
        StatResult("c", "t", 10, 1.0, None, 0.04, "", 0.0, ""),
    ]
    adjusted = corrected(results, method=HOLM)
    assert adjusted[0].p_corrected == pytest.approx(0.02)  # two tests in the family, not three
    assert adjusted[1].p_corrected is None
    with pytest.raises(ValueError, match="Unknown correction"):
        corrected(results, method="bonferonni")


def test_pairwise_comparisons_cover_every_pair_of_non_empty_groups_and_are_corrected():
    groups = {"a": [1, 2, 3, 4, 5], "b": [6, 7, 8, 9, 10], "c": [1, 3, 5, 7, 9], "empty": []}
    results = pairwise_mann_whitney(groups, subject="LOC")
    assert [r.subject for r in results] == ["LOC: a vs b", "LOC: a vs c", "LOC: b vs c"]
    assert all(r.p_corrected is not None and r.correction.startswith("Holm") for r in results)
    assert results[0].effect_size == -1.0 and results[0].magnitude == "large"


def test_importing_the_statistics_loads_no_numerical_library_nor_django():
    code = (
        "import sys, annotator.findings.statistics; "
        "print(sorted(m for m in ('numpy', 'scipy', 'statsmodels', 'django') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("seed", range(6))
def test_the_pairwise_family_computes_each_pair_as_the_single_test_does(seed):
    import random

    rng = random.Random(seed)
    groups = {
        f"g{i}": [rng.choice([0, 1, 2, 3, 5, 8, 13, 100, rng.random() * 50]) for _ in range(rng.randint(1, 120))]
        for i in range(5)
    }
    groups["no ties, small"] = [0.5 + i for i in range(7)]
    groups["other, small"] = [0.25 + 2 * i for i in range(6)]
    names = list(groups)
    family = pairwise_mann_whitney(groups)
    singles = [
        mann_whitney(groups[x], groups[y], subject=f"{x} vs {y}") for i, x in enumerate(names) for y in names[i + 1 :]
    ]
    assert [r.subject for r in family] == [r.subject for r in singles]
    for fast, reference in zip(family, singles, strict=True):
        assert fast.test == reference.test
        assert fast.statistic == pytest.approx(reference.statistic, abs=1e-9)
        assert fast.p == pytest.approx(reference.p, rel=1e-9, abs=1e-15)
        assert fast.effect_size == pytest.approx(reference.effect_size, abs=1e-12)
        assert fast.magnitude == reference.magnitude


def test_pairs_whose_values_are_all_equal_have_p_one():
    (result,) = pairwise_mann_whitney({"a": [3.0] * 60, "b": [3.0] * 70})
    reference = mann_whitney([3.0] * 60, [3.0] * 70)
    assert result.p == reference.p == 1.0 and result.effect_size == 0.0
