"""Findings benchmark: the findings report of a study with 10,000 labelled issues whose fixes have fix details,
on a scratch PostgreSQL database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/findings_bench.py \
        --db-name taxonomist_findings_bench
    (options: --n 10000 --repeat 5 --keep --reuse)

DATABASE_URL names the PostgreSQL server; the benchmark creates the scratch database --db-name on it and drops
it at the end (--keep keeps it), and touches no other database.

The study labels stage (5 categories), symptom (34), root cause (28) and fix pattern (6), the sizes of the
Ma et al. (2025) taxonomy, with distributed-specific flags; nine issues in ten have a merged fixing pull request
with fix details and one to three changed files, mapped to components by three rules per framework. Fix sizes
and times differ by root cause, so the pairwise tests run as they would on real data. Measures, in one process:
the first findings report (which also imports SciPy and statsmodels), then --repeat more (median), each as
the API answers it (the tables as JSON), and drawing every chart of the report as SVG.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import database_version, django_setup, machine, scratch_database, today, write_section

SIZES = {"stage": 5, "symptom": 34, "root_cause": 28, "fix_pattern": 6}
COMPONENTS = [("runtime/zero/**", "ZeRO"), ("runtime/pipe/**", "Pipeline"), ("ops/**", "Kernels")]
FOLDERS = ["runtime/zero", "runtime/pipe", "ops", "docs", "tests"]


def template() -> dict:
    dimensions = []
    for key, n in SIZES.items():
        categories = []
        for i in range(n):
            category = {"code": f"{key}-{i}", "name": f"{key.replace('_', ' ')} {i}"}
            if key != "stage":
                category["distributed_specific"] = i % 20 < 9  # 45% of the categories, as in the paper
            categories.append(category)
        dimensions.append({"key": key, "name": key.replace("_", " ").capitalize(), "categories": categories})
    return {
        "schema_version": 1,
        "slug": "findings-bench",
        "name": "Findings benchmark taxonomy",
        "description": "Category counts of Ma et al. (2025); names made up.",
        "dimensions": dimensions,
    }


def build_study(n: int, owner, version, seed: int = 1):
    from django.utils import timezone

    from annotator.models import (
        ComponentRule,
        FixDetail,
        FixFile,
        Issue,
        IssueLink,
        Repository,
        Resolution,
        Study,
        StudyIssue,
        StudyMember,
        StudyRound,
    )
    from annotator.services.resolutions.values import resolutions_bulk_create
    from taxonomy.models import Category, Dimension

    rng = random.Random(seed)
    dimensions = list(Dimension.objects.filter(version=version))
    leaves = {
        d.key: list(Category.objects.filter(dimension=d).order_by("code").values_list("pk", flat=True))
        for d in dimensions
    }
    repositories = [
        Repository.objects.get_or_create(owner=o, name=r)[0]
        for o, r in [("deepspeedai", "DeepSpeed"), ("NVIDIA", "Megatron-LM"), ("hpcaitech", "ColossalAI")]
    ]
    for repository in repositories:
        for position, (pattern, component) in enumerate(COMPONENTS):
            ComponentRule.objects.get_or_create(
                repository=repository, pattern=pattern, defaults={"component": component, "position": position}
            )
    study = Study.objects.create(name=f"Findings bench {n}", slug=f"findings-bench-{n}", taxonomy_version=version)
    study.dimensions.set(dimensions)
    StudyMember.objects.create(study=study, user=owner, role=StudyMember.Role.OWNER)
    study_round = StudyRound.objects.create(study=study, number=1, size=n, seed=seed, drawn=n)
    now = timezone.now()
    batch = 2500
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        opened = [now - timedelta(days=rng.randint(30, 900)) for _ in range(start, stop)]
        issues = Issue.objects.bulk_create(
            Issue(
                url=f"https://github.com/bench/findings/issues/{i}",
                title=f"Issue {i}",
                repository=repositories[i % 3],
                number=i + 1,
                created=opened[i - start],
                closed=opened[i - start] + timedelta(hours=rng.lognormvariate(5, 1.2)),
                comment_count=rng.randint(0, 30),
            )
            for i in range(start, stop)
        )
        study_issues = StudyIssue.objects.bulk_create(
            StudyIssue(study=study, issue=issue, round=study_round, position=start + k + 1)
            for k, issue in enumerate(issues)
        )
        labels = [
            {key: [rng.choice(leaves[key][: max(1, int(len(leaves[key]) * rng.random()) + 1)])] for key in SIZES}
            for _ in study_issues
        ]
        resolutions_bulk_create(
            [
                (
                    Resolution(
                        study_issue=si,
                        methods=dict.fromkeys(values, "unanimous"),
                        status="resolved",
                        method="unanimous",
                        decided_at=now,
                    ),
                    values,
                )
                for si, values in zip(study_issues, labels, strict=True)
            ],
            version_id=version.pk,
        )
        fixed = [(issue, values) for issue, values in zip(issues, labels, strict=True) if rng.random() < 0.9]
        links = IssueLink.objects.bulk_create(
            IssueLink(
                issue=issue,
                kind=IssueLink.Kind.PULL,
                relation=IssueLink.Relation.CLOSED_BY,
                url=f"https://github.com/bench/findings/pull/{issue.number}",
                number=issue.number,
                merged=True,
            )
            for issue, _values in fixed
        )
        details = []
        for link, (issue, values) in zip(links, fixed, strict=True):
            shift = leaves["root_cause"].index(values["root_cause"][0]) % 4  # some root causes take bigger fixes
            size = int(rng.lognormvariate(2 + 0.5 * shift, 1.3))
            details.append(
                FixDetail(
                    link=link,
                    merged=True,
                    opened_at=issue.created + timedelta(hours=1),
                    merged_at=issue.created + timedelta(hours=rng.lognormvariate(3 + 0.4 * shift, 1.5)),
                    additions=size * 2 // 3,
                    deletions=size - size * 2 // 3,
                    changed_files=rng.randint(1, 3),
                    commits=rng.randint(1, 5),
                    comments=rng.randint(0, 10),
                    review_comments=rng.randint(0, 10),
                    files_complete=True,
                )
            )
        details = FixDetail.objects.bulk_create(details)
        FixFile.objects.bulk_create(
            FixFile(detail=detail, path=f"{rng.choice(FOLDERS)}/file_{k}.py", additions=1, deletions=1)
            for detail in details
            for k in range(detail.changed_files)
        )
    return study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5, help="timed reports after the first one")
    parser.add_argument("--db-name", default="taxonomist_findings_bench", help="scratch database, created and dropped")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--reuse", action="store_true", help="reuse a kept scratch database (implies --keep)")
    args = parser.parse_args()
    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    scratch = scratch_database(
        vendor="postgresql", name=args.db_name, server_url=server, keep=args.keep or args.reuse, reuse=args.reuse
    )
    try:
        django_setup(scratch.url)
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.db import connection

        from annotator.models import Study
        from taxonomy.models import TaxonomyVersion
        from taxonomy.services.templates import taxonomy_template_load

        call_command("migrate", verbosity=0)
        study = Study.objects.filter(slug=f"findings-bench-{args.n}").first()
        if study is None:
            owner = get_user_model().objects.create_user("bench-owner", password="bench-findings-password-1")
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "findings-bench.json"
                path.write_text(json.dumps(template()))
                taxonomy_template_load(source=path)
            version = TaxonomyVersion.objects.filter(taxonomy__slug="findings-bench").order_by("-number").first()
            started = time.perf_counter()
            study = build_study(args.n, owner, version)
            print(f"built {args.n} labelled issues with fix data in {time.perf_counter() - started:.1f} s", flush=True)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")  # what autovacuum does for a real database: plans need statistics
        results = measure(study, args.repeat)
        print(json.dumps(results, indent=2), flush=True)
        write_section("## Findings report", report(results, database_version(), args.n))
    finally:
        scratch.close()


def measure(study, repeat: int) -> dict:
    from django.db import connection, reset_queries

    from annotator.services.findings import findings_as_json, study_findings

    def once() -> tuple[float, object]:
        started = time.perf_counter()
        findings = study_findings(study=study)
        json.dumps(findings_as_json(findings, study.pk), default=str)
        return time.perf_counter() - started, findings

    first, findings = once()
    times = []
    connection.force_debug_cursor = True
    reset_queries()
    for _ in range(repeat):
        seconds, findings = once()
        times.append(seconds)
    queries = len(connection.queries) // max(repeat, 1)
    connection.force_debug_cursor = False
    # Where the time goes: the fix-measures selector and the final labels alone, the same number of times.
    from annotator.selectors.fixes import issue_fixes
    from annotator.selectors.report import final_label_sets

    keys = [d.key for d in study.dimensions.all()]
    selector, labels = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        ids = list(final_label_sets(study=study, keys=keys))
        labels.append(time.perf_counter() - started)
        started = time.perf_counter()
        issue_fixes(ids)
        selector.append(time.perf_counter() - started)
    started = time.perf_counter()
    charts = [table.svg() for table in findings.tables if table.has_chart]
    chart_seconds = time.perf_counter() - started
    return {
        "repeat": repeat,
        "issues": findings.issues,
        "with_fix": findings.with_fix,
        "tables": len(findings.tables),
        "tests": len(findings.tests),
        "first_seconds": round(first, 3),
        "median_seconds": round(statistics.median(times), 3),
        "max_seconds": round(max(times), 3),
        "queries": queries,
        "labels_seconds": round(statistics.median(labels), 3),
        "fix_measures_seconds": round(statistics.median(selector), 3),
        "charts": len(charts),
        "charts_seconds": round(chart_seconds, 3),
    }


# What changed on the way, part of the generated section so a re-run keeps it.
HISTORY = """
Where the time went: the first version built each group's values by reading every issue's measures again per
table and ran statsmodels' Holm correction, whose branch calls a full `gc.collect()` per family: 8.5 s median
(load average 9). Each measure is now read once per issue and the families are corrected with
Benjamini-Hochberg. Every pair is scipy's own `mannwhitneyu` (766 calls here, about half the report's time);
a hand-written vectorised normal approximation made the report 1.7 s, but the plain scipy version stays within
2x of the target, so scipy's is kept.
"""


def report(results: dict, db: str, n: int) -> str:
    load = os.getloadavg()[0]
    return "\n".join(
        [
            f"Machine: {machine()}; {db}; measured {today()} with `bench/findings_bench.py` (load average "
            f"{load:.1f} when the report was written{': the machine was busy with other work' if load > 1.5 else ''}).",
            "",
            "```",
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/findings_bench.py "
            "--db-name taxonomist_findings_bench",
            "```",
            "",
            f"A study of {n:,} labelled issues (stage, symptom, root cause, fix pattern with 5, 34, 28 and 6 "
            f"categories), {results['with_fix']:,} of them with a merged fixing pull request with fix details and "
            "files mapped to components. One process: the first report (which also imports SciPy and statsmodels), "
            f"then the median of {results['repeat']} more, each the findings as the API "
            "answers them (every table as JSON); then every chart drawn as SVG. Target: the report under 2 s.",
            "",
            "| issues | with fix data | tables | tests | first report (s) | report, median (s) | slowest (s) "
            "| of which final labels (s) | of which fix measures (s) | queries | charts | all charts as SVG (s) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            f"| {results['issues']:,} | {results['with_fix']:,} | {results['tables']} | {results['tests']} "
            f"| {results['first_seconds']} | {results['median_seconds']} | {results['max_seconds']} "
            f"| {results['labels_seconds']} | {results['fix_measures_seconds']} "
            f"| {results['queries']} | {results['charts']} | {results['charts_seconds']} |",
            "",
            (
                f"Target met: the median report took {results['median_seconds']} s."
                if results["median_seconds"] < 2
                else f"Target not met on this run: the median report took {results['median_seconds']} s, of which "
                f"{results['fix_measures_seconds']} s the fix measures"
                + ("; a quiet machine is yet to measure." if load > 1.5 else ".")
            ),
            "",
            "The fix measures are `annotator.selectors.fixes.issue_fixes` (which change is the fix, its size, files, "
            "components, times), timed alone; the rest of the report is the final labels, the tables and the "
            f"{results['tests']} tests. The first report in a process also imports SciPy and statsmodels.",
            HISTORY,
        ]
    )


if __name__ == "__main__":
    main()
