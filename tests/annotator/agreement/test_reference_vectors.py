"""Every published reference value in tests/data/agreement/reference_vectors.json, within its tolerance."""

import json

import pytest

from annotator.agreement import (
    bennett_s,
    cohen_kappa,
    cohen_kappa_ci,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    gwet_ac1,
    krippendorff_alpha,
    masi_distance,
    percent_agreement,
    scott_pi,
)
from tests.data import REFERENCE_VECTORS

VECTORS = json.loads(REFERENCE_VECTORS.read_text(encoding="utf-8"))


def table_to_rows(table: list[list[int]], categories: list) -> list[list]:
    """Expand a contingency table (rows: first rater, columns: second) into two rater rows."""
    first, second = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            first += [categories[i]] * count
            second += [categories[j]] * count
    return [first, second]


def counts_to_rows(counts: list[list[int]]) -> list[list]:
    """Subject-by-category counts (same number of raters per subject) as rater rows: rater r gets the r-th label
    of each subject's labels listed in category order."""
    per_item = [[c for c, count in enumerate(row) for _ in range(count)] for row in counts]
    n_raters = len(per_item[0])
    assert all(len(labels) == n_raters for labels in per_item)
    return [[labels[r] for labels in per_item] for r in range(n_raters)]


def rows_and_kwargs(vector: dict) -> tuple[object, dict]:
    params, data = vector["params"], vector["data"]
    fmt = params["data_format"]
    if fmt == "contingency_table":
        categories = params.get("categories") or list(range(len(data)))
        return table_to_rows(data, categories), {"categories": categories}
    if fmt in ("rater_by_item", "set_pair", "subject_by_category_counts"):
        return data, {}
    raise AssertionError(f"unknown data_format {fmt!r}")


# The published interval is the Wald interval kappa -/+ z * se, which may run past kappa's range [-1, 1]; the
# reported one (low, high) is clipped to it. Compare the published bounds with the unclipped ones here, and the
# reported ones with the published bounds clipped (test_the_reported_interval_is_the_published_one_clipped).
CI_FIELDS = {"ci95_low": "low", "ci95_upp": "high"}


def _ci_field(field: str):
    names = {
        "kappa": "kappa",
        "se": "se",
        "se_h0": "se_h0",
        "ci95_low": "low_unclipped",
        "ci95_upp": "high_unclipped",
        "z_h0": "z",
    }

    def compute(data, params, **kw):
        return getattr(cohen_kappa_ci(data, level=0.95, **kw), names[field])

    return compute


def _fleiss(data, params, **kw):
    from_counts = fleiss_kappa_from_counts(data)
    from_rows = fleiss_kappa(counts_to_rows(data))
    assert from_rows == pytest.approx(from_counts, abs=1e-12)
    return from_counts


METRICS = {
    "cohen_kappa": lambda data, params, **kw: cohen_kappa(data, **kw),
    "scott_pi": lambda data, params, **kw: scott_pi(data, **kw),
    "gwet_ac1": lambda data, params, **kw: gwet_ac1(data, **kw),
    "percent_agreement": lambda data, params, **kw: percent_agreement(data, **kw),
    "bennett_s": lambda data, params, **kw: bennett_s(data, **kw),
    "weighted_kappa_linear": lambda data, params, **kw: cohen_kappa(data, weights=params["weights"], **kw),
    "weighted_kappa_quadratic": lambda data, params, **kw: cohen_kappa(data, weights=params["weights"], **kw),
    "fleiss_kappa": _fleiss,
    "masi_distance": lambda data, params, **kw: masi_distance(*data),
    **{
        f"krippendorff_alpha_{level}": (lambda lv: lambda data, params, **kw: krippendorff_alpha(data, level=lv, **kw))(
            level
        )
        for level in ("nominal", "ordinal", "interval", "ratio")
    },
    **{f"cohen_kappa.{field}": _ci_field(field) for field in ("kappa", "se", "se_h0", "ci95_low", "ci95_upp", "z_h0")},
}


@pytest.mark.parametrize(
    "vector",
    [pytest.param(v, id=v["name"]) for v in VECTORS],
)
def test_reference_vector(vector):
    data, kwargs = rows_and_kwargs(vector)
    got = METRICS[vector["metric"]](data, vector["params"], **kwargs)
    assert got == pytest.approx(vector["expected"], abs=vector["tolerance"]), vector.get("source")


CI_VECTORS = [v for v in VECTORS if v["metric"].startswith("cohen_kappa.ci95_")]


@pytest.mark.parametrize(
    "vector",
    [pytest.param(v, id=v["name"]) for v in CI_VECTORS],
)
def test_the_reported_interval_is_the_published_one_clipped(vector):
    data, kwargs = rows_and_kwargs(vector)
    ci = cohen_kappa_ci(data, level=0.95, **kwargs)
    expected = min(max(vector["expected"], -1.0), 1.0)
    got = getattr(ci, CI_FIELDS[vector["metric"].removeprefix("cohen_kappa.")])
    assert got == pytest.approx(expected, abs=vector["tolerance"]), vector.get("source")
    if not -1.0 <= vector["expected"] <= 1.0:
        assert ci.clipped, "a published bound outside [-1, 1] must be reported clipped"


def test_every_vector_is_checked():
    assert len(VECTORS) == 33
    assert {v["metric"] for v in VECTORS} <= set(METRICS)
    assert len({v["name"] for v in VECTORS}) == len(VECTORS)
