"""What the database guards on published taxonomy versions (taxonomy/migrations/0004) cost the edits they watch.

Every row added to a taxonomy version passes a trigger that checks that the version is not published, so
loading a template and starting a new draft (which copies every category and writes one lineage edge for each)
are the operations they slow. Measured here: a template of N categories in one dimension, loaded as a published
version, then a new draft started from it. Each is run three times in a transaction that is rolled back, and
the median is reported. Then the guards are dropped from the scratch database and the same runs repeat.

    .venv/bin/python bench/taxonomy_guard_bench.py [--sizes 300 5000]            # on a scratch SQLite file
    DATABASE_URL=postgres://... .venv/bin/python bench/taxonomy_guard_bench.py   # on PostgreSQL

DATABASE_URL names the PostgreSQL server; the benchmark creates the scratch database --db-name on it (default
taxonomist_taxguardbench) and drops it at the end, and touches no other database. Results go to stdout and to
docs/benchmarks.md, section "Taxonomy guards (<database>)".
"""

import argparse
import copy
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNS = 3


def _record(n: int):
    from taxonomy.template_schema import parse_template
    from tests.taxonomy.factories import VALID_TEMPLATE

    template = copy.deepcopy(VALID_TEMPLATE)
    dimension = template["dimensions"][0]
    dimension["categories"] = [{"code": f"c{i}", "name": f"Category {i}", "definition": "d"} for i in range(n)]
    template["dimensions"] = [dimension]
    return parse_template(json.dumps(template), filename=f"bench-{n}.json")


def _median_ms(n: int, actor) -> tuple[float, float]:
    """(load, new draft) in ms, the median of RUNS, each in a transaction rolled back afterwards."""
    from django.db import transaction

    from taxonomy.services.operations import version_draft_from
    from taxonomy.services.templates import taxonomy_template_record_load

    record = _record(n)
    loads, drafts = [], []
    for run in range(RUNS):
        with transaction.atomic():
            started = time.perf_counter()
            loaded = taxonomy_template_record_load(record=record, source_name=f"bench-{n}-{run}")
            loaded_at = time.perf_counter()
            version_draft_from(version=loaded.version, actor=actor)
            loads.append(loaded_at - started)
            drafts.append(time.perf_counter() - loaded_at)
            transaction.set_rollback(True)
    return statistics.median(loads) * 1000, statistics.median(drafts) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 5000], help="categories in the template")
    parser.add_argument("--db-name", default="taxonomist_taxguardbench", help="scratch database, created and dropped")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()

    from bench._common import django_setup, machine, scratch_database, today, write_section

    server_url = os.environ.get("DATABASE_URL", "")
    vendor = "postgresql" if server_url.startswith(("postgres://", "postgresql://")) else "sqlite"
    scratch = scratch_database(vendor=vendor, name=args.db_name, server_url=server_url)
    try:
        django_setup(scratch.url)
        from django.core.management import call_command
        from django.db import connection, connections

        from core.models import User

        call_command("migrate", verbosity=0)
        actor = User.objects.create_superuser("bench-maintainer", "bench@example.org", "not-a-secret")
        guarded = {n: _median_ms(n, actor) for n in args.sizes}
        guards = importlib.import_module("taxonomy.migrations.0004_published_versions_frozen")
        with connection.schema_editor() as editor:  # the scratch database only
            guards.drop(None, editor)
        unguarded = {n: _median_ms(n, actor) for n in args.sizes}
    finally:
        connections.close_all()
        scratch.close()

    lines = [
        f"Run on {today()}, {machine()}, {vendor}; median of {RUNS} runs, each rolled back.",
        "",
        "| categories | load the template: guarded / unguarded | start a new draft: guarded / unguarded |",
        "| ---: | ---: | ---: |",
    ]
    for n in args.sizes:
        (load, draft), (bare_load, bare_draft) = guarded[n], unguarded[n]
        lines.append(
            f"| {n:,} | {load:.0f} / {bare_load:.0f} ms ({load / bare_load:.2f}x) "
            f"| {draft:.0f} / {bare_draft:.0f} ms ({draft / bare_draft:.2f}x) |"
        )
    lines += [
        "",
        "The check is one indexed lookup of a row's version: on PostgreSQL once per INSERT statement over all its",
        "rows (a statement trigger over the inserted rows) and per row for updates and deletes; on SQLite per row,",
        "inline in the trigger. Taxonomy edits are rare, and a template of a few hundred categories loads in tens",
        "of milliseconds either way.",
        "Labelling and adjudication write no taxonomy rows; publishing a study may publish its draft version, one",
        "row, which the guards let through.",
    ]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        heading = f"## Taxonomy guards ({'PostgreSQL' if vendor == 'postgresql' else 'SQLite'})"
        command = (
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/taxonomy_guard_bench.py"
            if vendor == "postgresql"
            else ".venv/bin/python bench/taxonomy_guard_bench.py"
        )
        intro = __doc__.split("\n\n")[0]
        write_section(
            heading, f"{intro}\n\nCommand (a scratch database, dropped afterwards):\n\n```\n{command}\n```\n\n{report}"
        )


if __name__ == "__main__":
    main()
