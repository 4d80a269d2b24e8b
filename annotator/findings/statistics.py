"""The tests a reviewer asks for, each with its n, the exact test used, effect size and magnitude.

- ``independence(table)``: are two labellings of the same issues independent (e.g. framework and root cause)?
  Pearson's chi-square with Cramér's V; for a sparse table (expected counts below 5 in more than 20% of the
  cells, Cochran's rule) Fisher's exact test for a 2x2 table, otherwise a seeded Monte-Carlo chi-square test
  over random tables with the observed margins. The result says which one ran, and why.
- ``kruskal_wallis(groups)``: do fix sizes (or times) differ across categories? H with epsilon-squared.
- ``mann_whitney(a, b)`` and ``pairwise_mann_whitney(groups)``: which pairs differ? U with Cliff's delta.
- ``corrected(results, method)``: Holm or Benjamini-Hochberg over a family of results (statsmodels).

All from scipy and statsmodels, imported inside the functions so that loading this module costs nothing.
Undefined cases (fewer than two non-empty groups, no variation at all) answer a result with NaN figures and
the reason in ``note``, never an exception. Pure Python, no Django.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

NAN = float("nan")
DEFAULT_SEED = 20240617
DEFAULT_RESAMPLES = 9999
SPARSE_EXPECTED = 5.0
SPARSE_SHARE = 0.2
EXACT_MANN_WHITNEY_MAX = 50  # below this size per sample (and without ties) U's exact distribution is cheap
HOLM = "holm"
BENJAMINI_HOCHBERG = "fdr_bh"
AUTO, PEARSON, FISHER, MONTE_CARLO = "auto", "pearson", "fisher", "monte-carlo"
METHODS = (AUTO, PEARSON, FISHER, MONTE_CARLO)
CORRECTIONS = {HOLM: "Holm", BENJAMINI_HOCHBERG: "Benjamini–Hochberg"}

# Magnitude labels: (upper bound, label) in increasing order; the last label is for everything above.
# Cliff's delta: Romano, Kromrey, Coraggio & Skowronek (2006).
CLIFF_THRESHOLDS = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))
# Epsilon-squared: Cohen's (1988) benchmarks for a share of variance explained (0.01, 0.06, 0.14).
EPSILON_THRESHOLDS = ((0.01, "negligible"), (0.06, "small"), (0.14, "medium"))


@dataclass(frozen=True, slots=True)
class StatResult:
    """One test: what was compared, how, and what came out."""

    subject: str
    test: str
    n: int
    statistic: float
    df: int | None
    p: float
    effect_name: str
    effect_size: float
    magnitude: str
    p_corrected: float | None = None
    correction: str = ""
    note: str = ""

    @property
    def defined(self) -> bool:
        return not math.isnan(self.p)


def magnitude(value: float, thresholds: Sequence[tuple[float, str]], top: str = "large") -> str:
    """The label of ``|value|`` on a scale of (upper bound, label); "" when the value is undefined."""
    if value is None or math.isnan(value):
        return ""
    size = abs(value)
    for bound, label in thresholds:
        if size < bound:
            return label
    return top


def cramer_magnitude(v: float, rows: int, columns: int) -> str:
    """Cohen's (1988) benchmarks for Cramér's V, 0.1 / 0.3 / 0.5 divided by the square root of min(r, c) - 1."""
    if math.isnan(v):
        return ""
    root = math.sqrt(max(min(rows, columns) - 1, 1))
    return magnitude(v, ((0.1 / root, "negligible"), (0.3 / root, "small"), (0.5 / root, "medium")))


def _undefined(subject: str, test: str, n: int, effect: str, reason: str) -> StatResult:
    return StatResult(subject, test, n, NAN, None, NAN, effect, NAN, "", note=reason)


# --------------------------------------------------------------------------- independence


def _trimmed(table: Sequence[Sequence[int]]) -> list[list[int]]:
    """The table without its all-zero rows and columns (they carry no information and break expected counts)."""
    rows = [list(map(int, row)) for row in table if sum(row) > 0]
    if not rows:
        return []
    keep = [j for j in range(len(rows[0])) if any(row[j] for row in rows)]
    return [[row[j] for j in keep] for row in rows]


def independence(
    table: Sequence[Sequence[int]],
    *,
    subject: str = "",
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    method: str = AUTO,
) -> StatResult:
    """Are the rows and columns of a contingency table of counts independent? Chosen by the data, said in ``test``.

    Pearson's chi-square (no continuity correction) when at most 20% of the expected counts are below 5; else
    Fisher's exact test (two-sided) for a 2x2 table and, for a larger one, a Monte-Carlo chi-square test over
    ``resamples`` random tables with the observed margins drawn with ``seed`` (repeatable). The effect size is
    Cramér's V from the observed chi-square in every case. ``method`` names one of METHODS to run it whatever
    the data (the note still says how sparse the table is).
    """
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; use one of {', '.join(METHODS)}.")
    for row in table:
        for cell in row:
            if isinstance(cell, bool) or not isinstance(cell, int) or cell < 0:
                raise ValueError(f"A contingency table holds counts (whole numbers of 0 or more), not {cell!r}.")
    cells = _trimmed(table)
    n = sum(map(sum, cells))
    effect = "Cramér's V"
    if len(cells) < 2 or len(cells[0]) < 2:
        return _undefined(subject, "none", n, effect, "Fewer than two non-empty rows or columns: nothing to test.")
    import numpy as np
    from scipy import stats

    observed = np.array(cells)
    expected = stats.contingency.expected_freq(observed)
    sparse_cells = int((expected < SPARSE_EXPECTED).sum())
    sparse = sparse_cells > SPARSE_SHARE * observed.size
    if method != AUTO:
        sparse = method != PEARSON
    pearson = stats.chi2_contingency(observed, correction=False)
    rows, columns = observed.shape
    v = math.sqrt(pearson.statistic / (n * (min(rows, columns) - 1)))
    why = f"{sparse_cells} of {observed.size} cells have an expected count below {SPARSE_EXPECTED:g}"
    if not sparse:
        return StatResult(
            subject,
            "Pearson's chi-square test of independence",
            n,
            float(pearson.statistic),
            int(pearson.dof),
            float(pearson.pvalue),
            effect,
            v,
            cramer_magnitude(v, rows, columns),
            note=f"{why}.",
        )
    if method == FISHER or (method == AUTO and observed.shape == (2, 2)):
        if observed.shape != (2, 2):
            raise ValueError("Fisher's exact test here is for 2x2 tables; use the Monte-Carlo test for larger ones.")
        fisher = stats.fisher_exact(observed, alternative="two-sided")
        return StatResult(
            subject,
            "Fisher's exact test (two-sided)",
            n,
            float(fisher.statistic),
            None,
            float(fisher.pvalue),
            effect,
            v,
            cramer_magnitude(v, rows, columns),
            note=f"Sparse table: {why}; the statistic is the sample odds ratio.",
        )
    simulation = stats.MonteCarloMethod(n_resamples=resamples, rng=np.random.default_rng(seed))
    simulated = stats.chi2_contingency(observed, correction=False, method=simulation)
    return StatResult(
        subject,
        f"Monte-Carlo chi-square test ({resamples} random tables with the observed margins, seed {seed})",
        n,
        float(simulated.statistic),
        None,
        float(simulated.pvalue),
        effect,
        v,
        cramer_magnitude(v, rows, columns),
        note=f"Sparse table: {why}; the p-value is simulated, not from the chi-square distribution.",
    )


# --------------------------------------------------------------------------- differences of location


def _clean(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values if v is not None and v == v]  # NaN is the one value unequal to itself


def kruskal_wallis(groups: Mapping[str, Sequence[float]], *, subject: str = "") -> StatResult:
    """Do the groups' values come from the same distribution? Kruskal-Wallis H (tie-corrected) with epsilon-squared.

    Epsilon-squared is H / ((n^2 - 1) / (n + 1)), i.e. H / (n - 1) (Tomczak & Tomczak 2014). Empty groups are
    left out; fewer than two groups, or no variation at all, answer an undefined result.
    """
    samples = {name: _clean(values) for name, values in groups.items()}
    samples = {name: values for name, values in samples.items() if values}
    n = sum(len(v) for v in samples.values())
    test, effect = "Kruskal–Wallis H test (tie-corrected, chi-square approximation)", "epsilon²"
    if len(samples) < 2:
        return _undefined(subject, test, n, effect, "Fewer than two groups with values: nothing to compare.")
    if len({v for values in samples.values() for v in values}) < 2:
        return _undefined(subject, test, n, effect, "Every value is the same: the ranks carry no information.")
    from scipy import stats

    result = stats.kruskal(*samples.values())
    epsilon = float(result.statistic) / (n - 1)
    return StatResult(
        subject,
        test,
        n,
        float(result.statistic),
        len(samples) - 1,
        float(result.pvalue),
        effect,
        epsilon,
        magnitude(epsilon, EPSILON_THRESHOLDS),
        note=f"{len(samples)} groups.",
    )


def cliffs_delta(a: Sequence[float], b: Sequence[float]) -> float:
    """Cliff's delta: P(a > b) - P(a < b) over every pair, from the ranks (n log n, not n1 * n2 comparisons)."""
    a, b = _clean(a), _clean(b)
    if not a or not b:
        return NAN
    from scipy.stats import rankdata

    ranks = rankdata(a + b)
    u = float(ranks[: len(a)].sum()) - len(a) * (len(a) + 1) / 2  # pairs a > b, plus half the ties
    return 2 * u / (len(a) * len(b)) - 1


def mann_whitney(a: Sequence[float], b: Sequence[float], *, subject: str = "") -> StatResult:
    """Two-sided Mann-Whitney U test of ``a`` against ``b``, with Cliff's delta (positive: ``a`` tends larger).

    Exact when both samples have at most EXACT_MANN_WHITNEY_MAX values and there are no ties; otherwise the
    normal approximation with tie and continuity correction. ``statistic`` is U of ``a``.
    """
    a, b = _clean(a), _clean(b)
    if not a or not b:
        return _undefined(
            subject, "Mann–Whitney U test (two-sided)", len(a) + len(b), "Cliff's delta", "One of the groups is empty."
        )
    return _mann_whitney_of(a, b, subject=subject)


def _mann_whitney_of(a: Sequence[float], b: Sequence[float], *, subject: str) -> StatResult:
    """``mann_whitney`` of two non-empty samples already cleaned of None and NaN."""
    from scipy import stats

    exact = _uses_exact(a, b)
    result = stats.mannwhitneyu(a, b, alternative="two-sided", method="exact" if exact else "asymptotic")
    delta = 2 * float(result.statistic) / (len(a) * len(b)) - 1
    how = "exact" if exact else "normal approximation with tie and continuity correction"
    return StatResult(
        subject,
        f"Mann–Whitney U test (two-sided, {how})",
        len(a) + len(b),
        float(result.statistic),
        None,
        float(result.pvalue),
        "Cliff's delta",
        delta,
        magnitude(delta, CLIFF_THRESHOLDS),
        note=f"n = {len(a)} and {len(b)}.",
    )


def _uses_exact(a: Sequence[float], b: Sequence[float]) -> bool:
    return max(len(a), len(b)) <= EXACT_MANN_WHITNEY_MAX and len(set(a) | set(b)) == len(a) + len(b)


def pairwise_mann_whitney(
    groups: Mapping[str, Sequence[float]], *, method: str = HOLM, subject: str = ""
) -> list[StatResult]:
    """Every pair of non-empty groups (in the order given), each by scipy's ``mannwhitneyu`` as ``mann_whitney``
    runs it, corrected together. Each group is cleaned and converted once, not once per pair."""
    import numpy as np

    # Each group becomes an array once: scipy would otherwise convert the same list again for every pair.
    samples = {
        name: np.asarray(values, dtype=float)
        for name, values in ((name, _clean(values)) for name, values in groups.items())
        if values
    }
    prefix = f"{subject}: " if subject else ""
    results = [
        _mann_whitney_of(samples[x], samples[y], subject=f"{prefix}{x} vs {y}") for x, y in combinations(samples, 2)
    ]
    return corrected(results, method=method)


# --------------------------------------------------------------------------- multiple testing


def corrected(results: Sequence[StatResult], *, method: str = HOLM) -> list[StatResult]:
    """The results with ``p_corrected`` over the family (Holm or Benjamini-Hochberg, via statsmodels).

    Undefined results stay undefined and do not count in the family.
    """
    if method not in CORRECTIONS:
        raise ValueError(f"Unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}.")
    results = list(results)
    defined = [i for i, r in enumerate(results) if r.defined]
    if not defined:
        return results
    from statsmodels.stats.multitest import multipletests

    _reject, adjusted, _s, _b = multipletests([results[i].p for i in defined], method=method)
    out = list(results)
    label = f"{CORRECTIONS[method]} over {len(defined)} test{'s' if len(defined) != 1 else ''}"
    for i, p in zip(defined, adjusted, strict=True):
        out[i] = replace(results[i], p_corrected=float(p), correction=label)
    return out
