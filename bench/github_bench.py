"""Import from GitHub: N issues + 3N comments served by the fake GitHub, imported by the real sync.

Reports wall time, requests made against the minimum possible (one per page of each listing),
and the importer's peak traced memory, for N = 2,500 and 10,000 (memory should stay flat in N).
The fake server runs in a child process so its data does not count against the importer.

    .venv/bin/python bench/github_bench.py [--sizes 2500 10000]            # on a scratch SQLite file
    DATABASE_URL=postgres://... .venv/bin/python bench/github_bench.py   # on PostgreSQL

DATABASE_URL names the PostgreSQL server; the benchmark creates the scratch database --db-name on it (default
taxonomist_ghbench) and drops it at the end, and touches no other database.
"""

import argparse
import math
import multiprocessing
import os
import platform
import resource
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMMENTS_PER_ISSUE = 3
REPO = "deepspeedai/DeepSpeed"


def serve_fake(issues: int, ready, stop) -> None:
    """Child process: build the repository on the fake GitHub, serve it until told to stop."""
    from tests.annotator.github.fake_github import FakeGitHub

    fake = FakeGitHub(rate_limit=10**9).start()
    fake.add_repo(REPO)
    for i in range(issues):
        fake.add_issue(REPO, state="closed" if i % 3 == 0 else "open")
    for i in range(issues * COMMENTS_PER_ISSUE):
        fake.add_comment(REPO, 1 + i % issues)
    ready.put(fake.base_url)
    stop.wait()
    ready.put(len(fake.requests))
    fake.stop()


def run(issues: int) -> dict:
    from django.conf import settings

    from annotator.models import Comment, ImportJob, Issue, Repository
    from annotator.services.github_sync import github_client_build, github_import_continue, github_import_start

    context = multiprocessing.get_context("spawn")
    ready, stop = context.Queue(), context.Event()
    child = context.Process(target=serve_fake, args=(issues, ready, stop), daemon=True)
    child.start()
    settings.GITHUB_API_URL, settings.GITHUB_TOKEN = ready.get(timeout=600), ""
    Comment.objects.all().delete()
    Issue.objects.all().delete()
    ImportJob.objects.all().delete()
    Repository.objects.update(last_synced_at=None, sync_state={})

    tracemalloc.start()
    started = time.perf_counter()
    job = github_import_start(repository=REPO, enqueue=False)
    job = github_import_continue(job=job, client=github_client_build())
    wall = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    stop.set()
    served = ready.get(timeout=60)
    child.join(timeout=30)
    minimum = math.ceil(issues / 100) + math.ceil(issues * COMMENTS_PER_ISSUE / 100)
    assert job.status == ImportJob.Status.DONE, job.error
    assert Issue.objects.count() == issues and Comment.objects.count() == issues * COMMENTS_PER_ISSUE
    return {
        "issues": issues,
        "comments": issues * COMMENTS_PER_ISSUE,
        "wall_s": wall,
        "requests": job.counts["requests"],
        "served": served,
        "minimum": minimum,
        "peak_mib": peak / 2**20,
        "items_per_s": issues * (1 + COMMENTS_PER_ISSUE) / wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2500, 10000])
    parser.add_argument("--db-name", default="taxonomist_ghbench", help="scratch database, created and dropped")
    args = parser.parse_args()
    sizes = args.sizes

    from bench._common import django_setup, scratch_database

    server_url = os.environ.get("DATABASE_URL", "")
    vendor = "postgresql" if server_url.startswith(("postgres://", "postgresql://")) else "sqlite"
    scratch = scratch_database(vendor=vendor, name=args.db_name, server_url=server_url)
    try:
        django_setup(scratch.url)
        from django.core.management import call_command
        from django.db import connection, connections

        call_command("migrate", verbosity=0)
        rows = [run(n) for n in sizes]
    finally:
        connections.close_all()
        scratch.close()

    print(
        f"Import from GitHub on {connection.vendor}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, {datetime.now(UTC):%Y-%m-%d}"
    )
    print()
    print("| issues | comments | wall time | items/s | requests (served) | minimum | peak traced memory |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['issues']:,} | {r['comments']:,} | {r['wall_s']:.1f} s | {r['items_per_s']:,.0f} | "
            f"{r['requests']} ({r['served']}) | {r['minimum']} | {r['peak_mib']:.1f} MiB |"
        )
    print()
    print(f"Peak RSS of the importing process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
