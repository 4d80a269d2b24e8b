"""Seeded percentile bootstrap over items for any agreement measure (hand-written: it is the vectorised part).

Items (columns) are resampled with replacement; the interval is the (1-level)/2 and (1+level)/2 percentiles of
the resampled values, leaving out resamples where the measure is undefined (counted in ``n_undefined``). Being
quantiles of values the measure took, its ends never leave the measure's range (e.g. [-1, 1] for kappa), so unlike
the Wald interval of ``cohen_kappa_ci`` it needs no clipping.

Two-rater measures resample the items both raters labelled (AC1 every item, as its handbook form counts a lone
rating), and those that depend only on the contingency table (percent agreement, Cohen's kappa, Scott's pi,
Bennett's S, and AC1 when no rating is missing) take a fast path: the pairs are encoded once as
``a * k + b``, each batch of index arrays becomes a stack of tables with one ``np.bincount``, and the measure is
computed for the whole stack at once. The other measures re-run on the resampled integer codes; an arbitrary
callable re-runs on resampled rater rows. All paths draw the same index arrays, so they agree for one seed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ._input import NAN, AgreementUndefined, Coded, MeasureSpec, check_rows
from ._registry import resolve

# Elements per batch of index arrays: 2M int32 indices (8 MB) plus as many gathered codes keeps the working set in
# cache-friendly chunks while making the per-batch Python overhead negligible.
BATCH_ELEMENTS = 2_000_000
# The fast path runs batches on up to MAX_THREADS threads once there are THREADS_FROM index draws in all.
MAX_THREADS = 4
THREADS_FROM = 5_000_000


@dataclass(frozen=True)
class BootstrapResult:
    """A point estimate with its percentile bootstrap interval [low, high] at confidence ``level``."""

    estimate: float
    low: float
    high: float
    level: float
    n_resamples: int
    seed: int | None
    n_undefined: int
    measure: str
    reason: AgreementUndefined | None = None


def _batches(seed: np.random.SeedSequence, n: int, n_resamples: int) -> list[tuple]:
    """(generator, batch size) per batch of resamples: every batch draws from its own child of the seed, so the
    index arrays depend neither on the order the batches run in (threads) nor on the path that consumes them."""
    size = max(1, min(n_resamples, BATCH_ELEMENTS // max(n, 1)))
    sizes = [min(size, n_resamples - start) for start in range(0, n_resamples, size)]
    return [(np.random.default_rng(child), m) for child, m in zip(seed.spawn(len(sizes)), sizes, strict=True)]


def _draw(job: tuple, n: int) -> np.ndarray:
    rng, size = job
    return rng.integers(0, n, size=(size, n), dtype=np.int32 if n < 2**31 else np.int64)


def _fast(spec: MeasureSpec, coded: Coded, seed: np.random.SeedSequence, n_resamples: int) -> np.ndarray:
    k, n = coded.k, coded.n_items
    kk = max(k * k, 1)
    a, b = coded.codes
    pairs = a * k + b
    chunk = max(1, BATCH_ELEMENTS // kk)  # resamples per bincount, so that the stack of tables stays small

    def run(job: tuple) -> np.ndarray:
        idx = _draw(job, n)
        out = []
        for start in range(0, idx.shape[0], chunk):
            gathered = pairs[idx[start : start + chunk]]
            size = gathered.shape[0]
            gathered += (np.arange(size, dtype=np.int64) * kk)[:, None]  # each resample gets its own block of bins
            tables = np.bincount(gathered.ravel(), minlength=size * kk).reshape(size, k, k)
            with np.errstate(all="ignore"):
                out.append(spec.batch(tables, coded))
        return np.concatenate(out)

    jobs = _batches(seed, n, n_resamples)
    workers = min(len(jobs), os.cpu_count() or 1, MAX_THREADS)
    if workers < 2 or n * n_resamples < THREADS_FROM:
        return np.concatenate([run(job) for job in jobs])
    # numpy releases the GIL while drawing, gathering and counting: on 2 cores this halves the time.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return np.concatenate(list(pool.map(run, jobs)))


def _coded_loop(spec: MeasureSpec, coded: Coded, seed: np.random.SeedSequence, n_resamples: int) -> np.ndarray:
    values = [
        spec.compute(coded.take(row))[0]
        for job in _batches(seed, coded.n_items, n_resamples)
        for row in _draw(job, coded.n_items)
    ]
    return np.array(values, dtype=float)


def _callable_loop(measure: Callable, data: object, seed, n_resamples: int, kwargs: dict) -> np.ndarray | None:
    rows = [list(row) for row in check_rows(data, getattr(measure, "__name__", "measure"))]
    n = len(rows[0]) if rows else 0
    if n == 0:
        return None
    values = []
    for job in _batches(seed, n, n_resamples):
        for idx in _draw(job, n):
            picks = idx.tolist()
            values.append(float(measure([[r[i] for i in picks] for r in rows], **kwargs)))
    return np.array(values, dtype=float)


def _check(n_resamples: object, level: object, seed: object) -> None:
    if isinstance(level, str):
        raise ValueError(
            f"bootstrap_ci: level is the confidence level (e.g. 0.95), got {level!r}; to bootstrap alpha at that "
            f"level of measurement pass functools.partial(krippendorff_alpha, level={level!r})"
        )
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"bootstrap_ci: level must be strictly between 0 and 1, got {level!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"bootstrap_ci: n_resamples must be a positive integer, got {n_resamples!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"bootstrap_ci: seed must be a non-negative integer or None, got {seed!r}")


def bootstrap_ci(
    measure: str | Callable,
    data: object,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    **kwargs: object,
) -> BootstrapResult:
    """Percentile bootstrap interval of ``measure(data, **kwargs)``, resampling items; same seed, same interval.

    ``measure`` is one of the package's measures (or its name, or a ``functools.partial`` of one) or any callable
    taking rater rows. ``level`` is the confidence level; use a partial to pass Krippendorff's level of measurement.
    With an undefined estimate (NaN), or when every resample is undefined, low and high are NaN and ``reason``
    says why. ``seed=None`` draws fresh entropy (not reproducible).
    """
    _check(n_resamples, level, seed)
    spec, bound = resolve(measure)
    kwargs = {**bound, **kwargs}
    seed_seq = np.random.SeedSequence(seed)
    reason = None
    if spec is None:
        name = getattr(measure, "__name__", repr(measure))
        estimate = float(measure(data, **kwargs))
        values = _callable_loop(measure, data, seed_seq, n_resamples, kwargs) if not math.isnan(estimate) else None
    else:
        name = spec.name
        coded = spec.prepare(data, **kwargs)
        estimate, reason = spec.compute(coded)
        if math.isnan(estimate) or coded.n_items == 0:
            values = None
        elif spec.batch is not None and coded.n_raters == 2 and (coded.codes >= 0).all():
            values = _fast(spec, coded, seed_seq, n_resamples)
        else:
            values = _coded_loop(spec, coded, seed_seq, n_resamples)
    if values is None:  # nothing to resample: the estimate is NaN or there are no items
        if reason is None and not math.isnan(estimate):
            reason = AgreementUndefined.NO_DATA
        return BootstrapResult(estimate, NAN, NAN, float(level), n_resamples, seed, n_resamples, name, reason)
    defined = values[~np.isnan(values)]
    n_undefined = int(n_resamples - defined.size)
    if defined.size == 0:
        reason = AgreementUndefined.ALL_RESAMPLES_UNDEFINED
        return BootstrapResult(estimate, NAN, NAN, float(level), n_resamples, seed, n_undefined, name, reason)
    low, high = np.quantile(defined, [(1 - level) / 2, (1 + level) / 2])
    return BootstrapResult(estimate, float(low), float(high), float(level), n_resamples, seed, n_undefined, name)
