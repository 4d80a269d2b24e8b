#!/usr/bin/env bash
# Every benchmark, one after the other, on the local PostgreSQL server. Each creates and drops its own scratch
# database, named here; nothing else on the server is touched. BENCH_CACHE_URL names a scratch Redis database
# for the labelling benchmark's cache (it is emptied first); unset, no Redis is touched.
# Results are written to docs/benchmarks.md with the machine and date.
# Run on an otherwise idle machine: `make bench` (about 20 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
PY=.venv/bin/python
$PY bench/agreement_bench.py
$PY bench/import_bench.py --n 10000 --db-name taxonomist_bench
$PY bench/github_bench.py --db-name taxonomist_ghbench
$PY bench/fix_details_bench.py --db-name taxonomist_fixbench
$PY bench/labeling_bench.py --db-name taxonomist_lbench --cache-url "${BENCH_CACHE_URL:-}"
$PY bench/agreement_page_bench.py --db-name taxonomist_agreement_bench
$PY bench/export_bench.py --db-name taxonomist_exp_bench
$PY bench/taxonomy_guard_bench.py --db-name taxonomist_taxguardbench
# The hand-written SQL the rater's writes used until 69cb0ca beside the current ORM code, taking turns (about 25
# minutes; needs the repository's history): BENCH_HAND_SQL=1 runs it.
if [ "${BENCH_HAND_SQL:-0}" = 1 ]; then
    $PY bench/hand_sql_bench.py --cache-url "${BENCH_CACHE_URL:-}"
fi
# The embedded default under a team of five: `make run`'s server on a scratch SQLite file in a scratch folder.
$PY bench/team_sqlite_bench.py --var-dir "$(mktemp -d)/team-bench"
# Label Studio on this machine, the comparison of the labelling targets (installs it from PyPI into a scratch
# virtualenv outside the repository; BENCH_LABEL_STUDIO=0 skips it).
if [ "${BENCH_LABEL_STUDIO:-1}" = 1 ]; then
    $PY bench/label_studio_bench.py --db-name taxonomist_lsbench
    # 20 raters at once against both under docker-compose's gunicorn settings: Taxonomist's cache and broker in
    # two scratch Redis databases (emptied), named here; skipped when they are not.
    if [ -n "${BENCH_LOAD_CACHE_URL:-}" ] && [ -n "${BENCH_LOAD_BROKER_URL:-}" ]; then
        $PY bench/label_studio_bench.py --load --tasks 10000 --db-name taxonomist_lsbench_load \
            --cache-url "$BENCH_LOAD_CACHE_URL" --broker-url "$BENCH_LOAD_BROKER_URL"
    fi
fi
