"""Benchmark of annotator.agreement at study scale: 4 dimensions x 100,000 doubly-labelled items.

Run from the repository root: ``.venv/bin/python bench/agreement_bench.py`` (``--json`` for JSON).
Targets: all measures for the 4 dimensions together under 1 s; 1,000 bootstrap resamples of Cohen's kappa under 2 s.
The data are seeded: ~10-30 categories per dimension with skewed frequencies, ~80% agreement, 5% missing cells.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotator.agreement import (
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_ci,
    confusion_matrix,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    per_category_agreement,
    percent_agreement,
    scott_pi,
)

N_ITEMS = 100_000
CATEGORIES_PER_DIMENSION = (10, 17, 23, 30)
AGREEMENT = 0.8
MISSING = 0.05
TARGET_MEASURES_S = 1.0
TARGET_BOOTSTRAP_S = 2.0


def make_dimension(rng: np.random.Generator, dim: int, k: int) -> tuple[list[str], list[list]]:
    categories = [f"d{dim}-category-{c:02d}" for c in range(k)]
    p = 1.0 / np.arange(1, k + 1)  # Zipf-like: a few categories dominate, as in real bug taxonomies
    p /= p.sum()
    a = rng.choice(k, size=N_ITEMS, p=p)
    b = np.where(rng.random(N_ITEMS) < AGREEMENT, a, rng.choice(k, size=N_ITEMS, p=p))
    rows = []
    for codes in (a, b):
        row = [categories[c] for c in codes]
        for i in np.flatnonzero(rng.random(N_ITEMS) < MISSING):
            row[i] = None
        rows.append(row)
    return categories, rows


MEASURES = {
    "percent agreement": lambda cats, rows: percent_agreement(rows),
    "Cohen's kappa": lambda cats, rows: cohen_kappa(rows),
    "Cohen's kappa + CI": lambda cats, rows: cohen_kappa_ci(rows),
    "weighted kappa (linear)": lambda cats, rows: cohen_kappa(rows, weights="linear", categories=cats),
    "Scott's pi": lambda cats, rows: scott_pi(rows),
    "Fleiss' kappa": lambda cats, rows: fleiss_kappa(rows),
    "Krippendorff's alpha (nominal)": lambda cats, rows: krippendorff_alpha(rows),
    "Gwet's AC1": lambda cats, rows: gwet_ac1(rows, categories=cats),
    "per-category agreement": lambda cats, rows: per_category_agreement(rows, categories=cats),
    "confusion matrix": lambda cats, rows: confusion_matrix(rows, categories=cats),
}


def best_of(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(repeats: int) -> dict:
    rng = np.random.default_rng(20240601)
    dims = [make_dimension(rng, d, k) for d, k in enumerate(CATEGORIES_PER_DIMENSION)]
    per_measure = {
        name: best_of(repeats, lambda fn=fn: [fn(cats, rows) for cats, rows in dims]) for name, fn in MEASURES.items()
    }
    all_measures = best_of(repeats, lambda: [fn(cats, rows) for cats, rows in dims for fn in MEASURES.values()])
    boot_one = best_of(repeats, lambda: bootstrap_ci(cohen_kappa, dims[-1][1], n_resamples=1000, seed=1))
    boot_all = best_of(repeats, lambda: [bootstrap_ci(cohen_kappa, rows, n_resamples=1000, seed=1) for _, rows in dims])
    example = bootstrap_ci(cohen_kappa, dims[-1][1], n_resamples=1000, seed=1)
    return {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            # Other work on the machine slows every figure down: the 1-minute load average when the run ended.
            "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        },
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "data": {
            "dimensions": len(dims),
            "items": N_ITEMS,
            "categories": list(CATEGORIES_PER_DIMENSION),
            "agreement": AGREEMENT,
            "missing_cells": MISSING,
            "repeats": repeats,
            "kappa_last_dimension": example.estimate,
            "kappa_ci95_last_dimension": [example.low, example.high],
        },
        "seconds": {
            **{f"{name} (4 dims)": t for name, t in per_measure.items()},
            "all measures (4 dims)": all_measures,
            "bootstrap 1000x kappa (1 dim)": boot_one,
            "bootstrap 1000x kappa (4 dims)": boot_all,
        },
        "targets": {
            "all measures (4 dims) < 1 s": all_measures < TARGET_MEASURES_S,
            "bootstrap 1000x kappa (1 dim) < 2 s": boot_one < TARGET_BOOTSTRAP_S,
        },
    }


def markdown(result: dict) -> str:
    m, d = result["machine"], result["data"]
    lines = [
        "# annotator.agreement benchmark",
        "",
        f"- Date: {result['date']}",
        f"- Machine: {m['platform']}, {m['cpu']}, {m['cores']} cores; Python {m['python']}, numpy {m['numpy']}; "
        f"load average {m['load_average_1min']} at the end of the run",
        f"- Data: {d['dimensions']} dimensions x {d['items']:,} items, {d['categories']} categories, "
        f"~{d['agreement']:.0%} agreement, {d['missing_cells']:.0%} missing cells; best of {d['repeats']} runs",
        f"- Kappa (last dimension): {d['kappa_last_dimension']:.4f}, bootstrap 95% CI "
        f"[{d['kappa_ci95_last_dimension'][0]:.4f}, {d['kappa_ci95_last_dimension'][1]:.4f}]",
        "",
        "| What | Seconds |",
        "|---|---:|",
        *(f"| {name} | {sec:.3f} |" for name, sec in result["seconds"].items()),
        "",
        "| Target | Met |",
        "|---|---|",
        *(f"| {name} | {'yes' if ok else 'NO'} |" for name, ok in result["targets"].items()),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--repeats", type=int, default=3, help="runs per timing; the best is reported")
    args = parser.parse_args(argv)
    result = run(args.repeats)
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0 if all(result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
