"""Benchmark of the agreement page over HTTP on a study of 100,000 doubly-labelled issues and 4 dimensions.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/agreement_page_bench.py

DATABASE_URL names a PostgreSQL server: the benchmark creates a scratch database (default
`taxonomist_agreement_bench`), migrates it, fills it with bulk inserts and drops it at the end. Without
DATABASE_URL it uses a scratch SQLite file. The study: N issues (default 100,000), 2 raters, 4 dimensions
(a flat one, a 3-level tree, a 2-level tree, a multi-valued one), ~80% agreement, 5% of the rater cells
missing (assigned, not submitted). A real HTTP server (Django's WSGI server in a thread, on 127.0.0.1)
serves the page; requests times:
  - cold: the first computation (the cache is cleared before each of --cold requests),
  - warm: the cached report (--warm requests, default 20),
and prints a Markdown table that also goes into docs/benchmarks.md, section "Agreement page".
Targets: warm median under 300 ms, cold under 2 s (ideally 1 s), the labels version check under 50 ms.
`--reuse` (with `--keep` on an earlier run) skips building the study.
"""

import argparse
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Agreement page"
sys.path.insert(0, str(ROOT))

from bench._common import database_version, machine, postgres_exists  # noqa: E402 -- after the path is set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="issues in the study (default 100000)")
    parser.add_argument("--cold", type=int, default=3, help="cold requests (cache cleared before each)")
    parser.add_argument("--warm", type=int, default=20, help="warm requests")
    parser.add_argument("--db-name", default="taxonomist_agreement_bench", help="scratch database (PostgreSQL)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database afterwards")
    parser.add_argument(
        "--reuse", action="store_true", help="reuse a scratch database kept by --keep (same --n); implies --keep"
    )
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()

    server_url = os.environ.get("DATABASE_URL", "")
    scratch = None
    if server_url.startswith(("postgres://", "postgresql://")):
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.db_name):
            sys.exit("--db-name must be a plain lower-case identifier")
        args.keep = args.keep or args.reuse
        if not (args.reuse and postgres_exists(server_url, args.db_name)):
            args.reuse = False
            _admin(server_url, f"DROP DATABASE IF EXISTS {args.db_name}", f"CREATE DATABASE {args.db_name}")
        os.environ["DATABASE_URL"] = _with_database(server_url, args.db_name)
    else:
        scratch = tempfile.mkdtemp(prefix="agreement-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}/bench.sqlite3"
    # A plain-HTTP server on loopback: no TLS redirect, no secure-only cookies, no static manifest.
    for name, value in {
        "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "SECURE_HSTS_SECONDS": "0",
        "STATIC_MANIFEST": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-only-" + "k" * 50,
    }.items():
        os.environ[name] = value
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        results = _run(args)
        table = _markdown(results)
        print(table)
        if not args.no_write:
            _write_docs(table, results)
    finally:
        if scratch is None and not args.keep:
            from django.db import connections

            connections.close_all()
            # The server thread's connection is still open: end it, or DROP DATABASE refuses (name checked above).
            terminate = f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{args.db_name}'"  # noqa: S608
            _admin(server_url, terminate, f"DROP DATABASE IF EXISTS {args.db_name}")


def _run(args) -> dict:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    found = _existing_study(args.n) if args.reuse else None
    study, owner = found or _build_study(args.n)
    build_seconds = time.perf_counter() - started
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # what autovacuum does after bulk loads; plans without it are a guess
    server, base = _serve()
    try:
        session = _session(owner, base)
        url = f"{base}/studies/{study.pk}/agreement/"
        from django.core.cache import cache

        cold = []
        for _ in range(args.cold):
            cache.clear()
            cold.append(_get(session, url))
        warm = [_get(session, url) for _ in range(args.warm)]
        api_warm = [_get(session, f"{base}/api/v1/studies/{study.pk}/agreement/") for _ in range(args.warm)]
        page_bytes = len(session.get(url).content)
    finally:
        server.shutdown()
    steps = _breakdown(study, args.cold)
    return {
        "steps": steps,
        "reused": found is not None,
        "n": args.n,
        "build": build_seconds,
        "cold": cold,
        "warm": warm,
        "api_warm": api_warm,
        "bytes": page_bytes,
        "server": database_version(),
    }


def _breakdown(study, repeats: int) -> dict[str, float]:
    """Median seconds of each step of a first computation, measured in-process, and of the version check."""
    from django.core.cache import cache

    from annotator.selectors.agreement import labels_version, study_labels
    from annotator.services.agreement.compute import build_report

    runs: dict[str, list[float]] = {}
    for _ in range(max(repeats, 1)):
        cache.clear()
        started = time.perf_counter()
        labels = study_labels(study=study)
        runs.setdefault("read labels", []).append(time.perf_counter() - started)
        for step, seconds in labels.timings.items():
            runs.setdefault(f"  of which {step}", []).append(seconds)
        started = time.perf_counter()
        build_report(labels)
        runs.setdefault("compute every measure, level, pair, round", []).append(time.perf_counter() - started)
    for _ in range(20):
        started = time.perf_counter()
        labels_version(study=study)
        runs.setdefault("labels version check", []).append(time.perf_counter() - started)
    return {step: statistics.median(values) for step, values in runs.items()}


def _get(session, url: str) -> float:
    started = time.perf_counter()
    response = session.get(url)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        sys.exit(f"GET {url} answered {response.status_code}")
    return elapsed


def _serve():
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args) -> None:
            pass

    # One thread serves every request, as a gunicorn sync worker does, keeping its database connection.
    server = WSGIServer(("127.0.0.1", 0), QuietHandler, ipv6=False)
    server.set_app(WSGIHandler())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _session(owner, base: str):
    import requests
    from django.test import Client

    client = Client()
    client.force_login(owner)  # writes the session row; the HTTP client carries its cookie
    session = requests.Session()
    session.cookies.set("sessionid", client.cookies["sessionid"].value, domain="127.0.0.1")
    session.trust_env = False  # loopback only: never through a proxy
    return session


# --------------------------------------------------------------------------- the study


def _build_study(n: int):
    from django.contrib.auth.models import Group
    from django.db import transaction
    from django.utils import timezone

    from annotator.models import (
        Annotation,
        AnnotationValue,
        Assignment,
        FirstSubmission,
        FirstSubmissionValue,
        Issue,
        Repository,
        Study,
        StudyIssue,
        StudyMember,
        StudyRound,
    )
    from core.models import User
    from core.permissions import STUDY_OWNERS_GROUP
    from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion

    rng = np.random.default_rng(20251)
    now = timezone.now()
    with transaction.atomic():
        owner = User.objects.create_user("bench-owner", password="bench-owner-password")
        owner.groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
        raters = [User.objects.create_user(f"bench-rater-{i}", password=f"bench-rater-{i}-pw") for i in (1, 2)]
        taxonomy = Taxonomy.objects.create(slug="bench", name="Bench")
        version = TaxonomyVersion.objects.create(taxonomy=taxonomy, number=1)
        leaves: dict[str, list[Category]] = {}
        specs = [("stage", [5], False), ("symptom", [4, 3, 3], False), ("root_cause", [5, 4], False)]
        specs.append(("fix_pattern", [6], True))
        dims = []
        for order, (key, shape, multi) in enumerate(specs):
            names = ["stage", "inner category", "leaf"][: len(shape)] if len(shape) > 1 else []
            dim = Dimension.objects.create(
                version=version,
                key=key,
                name=key.replace("_", " ").title(),
                order=order,
                multi_valued=multi,
                level_names=names,
            )
            dims.append(dim)
            parents: list[Category | None] = [None]
            for depth, width in enumerate(shape, start=1):
                level = []
                for parent in parents:
                    for i in range(width):
                        code = f"{parent.code if parent else key}.{i}"
                        level.append(
                            Category.objects.create(
                                dimension=dim,
                                parent=parent,
                                code=code,
                                name=f"{key} {code}",
                                order=i,
                                selectable=depth == len(shape),
                            )
                        )
                parents = level
            leaves[key] = parents
        study = Study.objects.create(name="Bench study", slug="bench-study", taxonomy_version=version)
        study.dimensions.set(dims)
        members = [StudyMember(study=study, user=owner, role=StudyMember.Role.OWNER)]
        members += [StudyMember(study=study, user=r, role=StudyMember.Role.RATER) for r in raters]
        StudyMember.objects.bulk_create(members)
        repo = Repository.objects.create(owner="bench", name="bench")
        study_round = StudyRound.objects.create(study=study, number=1, size=n, seed=1, drawn=n, pool_size=n)
    batch = 10_000
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        with transaction.atomic():
            issues = Issue.objects.bulk_create(
                [
                    Issue(
                        repository=repo,
                        number=i + 1,
                        title=f"Bench issue {i + 1}: NCCL timeout in stage {i % 3}",
                        url=f"https://example.org/bench/issues/{i + 1}",
                    )
                    for i in range(start, stop)
                ]
            )
            study_issues = StudyIssue.objects.bulk_create(
                [
                    StudyIssue(study=study, issue=issue, round=study_round, position=start + k + 1)
                    for k, issue in enumerate(issues)
                ]
            )
            assignments = Assignment.objects.bulk_create(
                [
                    Assignment(study_issue=si, rater=r, status=Assignment.Status.SUBMITTED)
                    for si in study_issues
                    for r in raters
                ]
            )
            missing = rng.random(len(assignments)) < 0.05
            annotations = Annotation.objects.bulk_create(
                [
                    Annotation(assignment=a, submitted_at=None if gone else now)
                    for a, gone in zip(assignments, missing, strict=True)
                ]
            )
            values = []
            for pair_start in range(0, len(annotations), 2):
                truth = {key: rng.integers(len(cats)) for key, cats in leaves.items()}
                for annotation in annotations[pair_start : pair_start + 2]:
                    for key, cats in leaves.items():
                        pick = truth[key] if rng.random() < 0.8 else rng.integers(len(cats))
                        chosen = {int(pick)}
                        if key == "fix_pattern" and rng.random() < 0.3:
                            chosen.add(int(rng.integers(len(cats))))
                        values += [
                            AnnotationValue(annotation=annotation, dimension_id=cats[c].dimension_id, category=cats[c])
                            for c in sorted(chosen)
                        ]
            AnnotationValue.objects.bulk_create(values, batch_size=20_000)
            # Each submitted annotation's first submission, as the submit service records it (same labels).
            firsts = FirstSubmission.objects.bulk_create(
                [
                    FirstSubmission(
                        annotation=annotation,
                        study_issue_id=annotation.assignment.study_issue_id,
                        rater_id=annotation.assignment.rater_id,
                        submitted_at=now,
                    )
                    for annotation in annotations
                    if annotation.submitted_at is not None
                ]
            )
            first_of = {first.annotation_id: first for first in firsts}
            FirstSubmissionValue.objects.bulk_create(
                [
                    FirstSubmissionValue(
                        first_submission=first_of[v.annotation.pk], dimension_id=v.dimension_id, category=v.category
                    )
                    for v in values
                    if v.annotation.pk in first_of
                ],
                batch_size=20_000,
            )
        print(f"  built {stop:,} of {n:,} issues", file=sys.stderr)
    return study, owner


# --------------------------------------------------------------------------- databases and report


def _existing_study(n: int):
    """The study of an earlier run kept with --keep, if it has n issues."""
    from annotator.models import Study
    from core.models import User

    study = Study.objects.filter(slug="bench-study").first()
    if study is None or study.study_issues.count() != n:
        sys.exit(f"--reuse: the kept database holds no bench study of {n:,} issues; run once without --reuse")
    return study, User.objects.get(username="bench-owner")


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def _admin(server_url: str, *statements: str) -> None:
    import psycopg2

    conn = psycopg2.connect(_with_database(server_url, "postgres"))
    conn.autocommit = True  # CREATE/DROP DATABASE refuse to run in a transaction
    try:
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
    finally:
        conn.close()


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def _markdown(r: dict) -> str:
    def row(name: str, values: list[float]) -> str:
        return (
            f"| {name} | {len(values)} | {statistics.median(values) * 1000:,.0f} | {_p95(values) * 1000:,.0f} "
            f"| {max(values) * 1000:,.0f} |"
        )

    warm_median = statistics.median(r["warm"]) * 1000
    cold_median = statistics.median(r["cold"]) * 1000
    steps = ["| step (in-process, median) | ms |", "| --- | ---: |"]
    steps += [f"| {name} | {seconds * 1000:,.0f} |" for name, seconds in r["steps"].items()]
    lines = [
        f"Run on {datetime.now(UTC):%Y-%m-%d}, {machine()}, {r['server']} on the same machine.",
        "",
        "| request | count | median ms | p95 ms | max ms |",
        "| --- | ---: | ---: | ---: | ---: |",
        row("page, cold (first computation)", r["cold"]),
        row("page, warm (cached report)", r["warm"]),
        row("API JSON, warm", r["api_warm"]),
        "",
        "",
        *steps,
        "",
        f"- cold page under 2 s: {'yes' if cold_median < 2000 else 'no'} ({cold_median:,.0f} ms median; "
        f"under 1 s: {'yes' if cold_median < 1000 else 'no'})",
        f"- labels version check under 50 ms: {'yes' if r['steps']['labels version check'] < 0.05 else 'no'}",
        f"- warm page under 300 ms: {'yes' if warm_median < 300 else 'no'} ({warm_median:,.0f} ms median)",
        f"- {r['n']:,} issues, 2 raters, 4 dimensions, 5% of rater cells missing; "
        + ("study kept from an earlier run" if r["reused"] else f"study built in {r['build']:,.0f} s")
        + f"; page {r['bytes'] / 1024:,.0f} KiB",
    ]
    return "\n".join(lines)


def _write_docs(table: str, r: dict) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    section = "\n".join(
        [
            SECTION,
            "",
            "Command (creates, fills and drops a scratch database `taxonomist_agreement_bench`):",
            "",
            "```",
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/agreement_page_bench.py",
            "```",
            "",
            "What it measures: the agreement page of one study (N doubly-labelled issues, 4 dimensions: a flat "
            "one, a 3-level tree, a 2-level tree and a multi-valued one; ~80% agreement; 5% of rater cells "
            "missing) requested over HTTP from Django's WSGI server on 127.0.0.1 (one server thread, as a "
            "gunicorn sync worker), signed in as the owner. Cold: the cache is cleared first, so the request "
            "reads every label and computes every measure, level, pair, round and confusion matrix. Warm: the "
            "report comes from the cache, keyed by the study's labels version (one query on a per-study counter "
            "that the annotation and resolution services bump in the transaction of each change). The step "
            "table times a first computation in-process: reading the labels (the raters' first submissions, "
            "which the before-discussion figures read, and the current annotations, which the after-discussion "
            "ones read: plain ORM values_list rows streamed into numpy arrays) and computing the report from them "
            "(each dimension and level encoded once, every measure on integer codes).",
            "",
            "After a label change a Celery task recomputes the report (debounced: one queued task per study, "
            "10 s after the first change), so with a worker the next page view is warm; the cold figures are "
            "what a view costs when the cache is empty (after a restart, or without a worker).",
            "",
            table,
            "",
        ]
    )
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    replaced, count = pattern.subn(lambda _: section + "\n", text)
    text = replaced if count else text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
