"""Fix details: N closed issues, each fixed by one pull request on the fake GitHub, read by `--fix-details`.

The issues and their fix links are imported first (not measured); then a sync with fix details reads
every linked pull request with its files. Reported: wall time of that sync, the requests of its fix phase
against the minimum (one per pull request plus one per page of its files), the importer's peak traced
memory (which should stay flat in N: one fix is held at a time), and a second sync with --full, whose fix
phase should be answered 304 Not Modified throughout. One pull request in ten changes 250 files (three
file pages), the others 4. The fake server runs in a child process so its data does not count.

    .venv/bin/python bench/fix_details_bench.py [--sizes 300 3000]            # on a scratch SQLite file
    DATABASE_URL=postgres://... .venv/bin/python bench/fix_details_bench.py   # on PostgreSQL

DATABASE_URL names the PostgreSQL server; the benchmark creates the scratch database --db-name on it (default
taxonomist_fixbench) and drops it at the end, and touches no other database.
"""

import argparse
import math
import multiprocessing
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REPO = "deepspeedai/DeepSpeed"
LARGE_EVERY, LARGE_FILES, SMALL_FILES = 10, 250, 4
FILES_PER_PAGE = 100


def files_of(i: int) -> int:
    return LARGE_FILES if i % LARGE_EVERY == 0 else SMALL_FILES


def serve_fake(issues: int, ready, stop) -> None:
    """Child process: N closed issues, each with its fixing pull request; serve until told to stop."""
    from tests.annotator.github.fake_github import FakeGitHub

    fake = FakeGitHub(rate_limit=10**9).start()
    fake.add_repo(REPO)
    for i in range(issues):
        number = fake.add_issue(REPO, state="closed")["number"]
        fake.add_fix(REPO, number, pull_number=100_000 + i, sha=None, files=files_of(i))
    ready.put(fake.base_url)
    while not stop.wait(0.05):
        pass
    ready.put(sum(1 for r in fake.requests if "/pulls/" in r.path))
    fake.stop()


def _sync(**options):
    from annotator.services.github_sync import github_client_build, github_import_continue, github_import_start

    job = github_import_start(repository=REPO, enqueue=False, **options)
    return github_import_continue(job=job, client=github_client_build())


def run(issues: int) -> dict:
    from django.conf import settings

    from annotator.models import Comment, FixDetail, FixFile, ImportJob, Issue, IssueLink, Repository

    context = multiprocessing.get_context("spawn")
    ready, stop = context.Queue(), context.Event()
    child = context.Process(target=serve_fake, args=(issues, ready, stop), daemon=True)
    child.start()
    settings.GITHUB_API_URL, settings.GITHUB_TOKEN = ready.get(timeout=900), ""
    for model in (FixFile, FixDetail, IssueLink, Comment, Issue, ImportJob):
        model.objects.all().delete()
    Repository.objects.update(last_synced_at=None, sync_state={})

    _sync(fix_links=True)  # the issues and their links: not measured

    tracemalloc.start()
    started = time.perf_counter()
    job = _sync(fix_details=True)
    wall = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert job.status == ImportJob.Status.DONE, job.error

    started = time.perf_counter()
    again = _sync(fix_details=True, full=True)
    wall_again = time.perf_counter() - started

    stop.set()
    served = ready.get(timeout=60)
    child.join(timeout=30)
    files = sum(files_of(i) for i in range(issues))
    minimum = issues + sum(math.ceil(files_of(i) / FILES_PER_PAGE) for i in range(issues))
    assert FixDetail.objects.count() == issues and FixFile.objects.count() == files
    return {
        "prs": issues,
        "files": files,
        "wall_s": wall,
        "fix_requests": job.counts["fix_requests"],
        "minimum": minimum,
        "peak_mib": peak / 2**20,
        "again_s": wall_again,
        "again_requests": again.counts.get("fix_requests", 0),
        "again_304": again.counts.get("fixes_unchanged", 0),
        "served": served,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 3000])
    parser.add_argument("--db-name", default="taxonomist_fixbench", help="scratch database, created and dropped")
    args = parser.parse_args()

    from bench._common import django_setup, machine, scratch_database, today

    server_url = os.environ.get("DATABASE_URL", "")
    vendor = "postgresql" if server_url.startswith(("postgres://", "postgresql://")) else "sqlite"
    scratch = scratch_database(vendor=vendor, name=args.db_name, server_url=server_url)
    try:
        django_setup(scratch.url)
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        rows = [run(n) for n in args.sizes]
    finally:
        connections.close_all()
        scratch.close()

    print(f"Fix details from GitHub on {vendor}, {machine()}, {today()}")
    print()
    print(
        "| pull requests | files | wall time | fix requests | minimum | peak traced memory "
        "| --full again: time, requests (304) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['prs']:,} | {r['files']:,} | {r['wall_s']:.1f} s | {r['fix_requests']:,} | {r['minimum']:,} | "
            f"{r['peak_mib']:.1f} MiB | {r['again_s']:.1f} s, {r['again_requests']:,} ({r['again_304']:,}) |"
        )
    print()
    print(f"Peak RSS of the importing process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
