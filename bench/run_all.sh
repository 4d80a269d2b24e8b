#!/usr/bin/env bash
# Every benchmark, one after the other, on the local PostgreSQL (each makes and drops its own
# scratch database). Results are written to docs/benchmarks.md with the machine and date.
# Run on an otherwise idle machine: `make bench` (about 20 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
PY=.venv/bin/python
$PY bench/agreement_bench.py
$PY bench/import_bench.py --n 10000
$PY bench/github_bench.py
$PY bench/labeling_bench.py
$PY bench/agreement_page_bench.py
$PY bench/export_bench.py
# Label Studio on this machine, the comparison of the labelling targets (installs it from PyPI into a scratch
# virtualenv outside the repository; BENCH_LABEL_STUDIO=0 skips it).
if [ "${BENCH_LABEL_STUDIO:-1}" = 1 ]; then
    $PY bench/label_studio_bench.py
fi
