"""The replication package of a study: one zip with everything a reader needs to check the paper and to
import the study into another instance (``import_study_export``).

Layout (every file listed with its SHA-256 in SHA256SUMS, in the format ``sha256sum -c`` checks):

    README.md                 the study, its sample frame and seed, how to cite, the files
    study.json                settings, dimensions, rounds (filters, size, seed, stratification)
    taxonomy/taxonomy.json    the taxonomy version in the template schema (``load_taxonomy`` reads it)
    taxonomy/taxonomy.csv     one row per category
    taxonomy/codebook.md      the codebook
    data/issues.jsonl         the issues: URL and metadata (``import_issues`` reads it)
    data/sample.jsonl         which issue is in which round, at which position
    data/labels.csv|.jsonl    every rater's submitted labels, raters as R1, R2, ...
    data/final_labels.csv|.jsonl   the final (resolved) labels
    data/fixes.csv            the fix data, tidy: one row per issue with its final labels and fix measures
    agreement/agreement.json|.csv  the agreement report
    SHA256SUMS

Files are written to a temporary folder one row at a time, then zipped: memory stays flat in the study size.
"""

import json
import platform
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

from django.utils import timezone

from annotator.exports import (
    TAXONOMY_CSV_HEADER,
    checksums_manifest,
    csv_rows,
    jsonl_lines,
    markdown_codebook,
    taxonomy_csv_rows,
)
from annotator.exports.jsonl import dumps
from annotator.models import Issue, Study, StudyIssue

from .context import ExportContext, export_context
from .fix_data import README_LINES as FIX_DATA_README
from .fix_data import fix_data_header, fix_data_rows
from .lines import final_dataset_csv_lines, final_dataset_jsonl_lines
from .rows import (
    CHUNK_SIZE,
    rater_labels_header,
    rater_labels_records,
    rater_labels_rows,
)
from .taxonomy import version_template

PACKAGE_FORMAT = 1
MANIFEST = "SHA256SUMS"


def _write(path: Path, chunks: Iterable[str]) -> int:
    """Write text chunks; returns the number of lines written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = 0
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for chunk in chunks:
            handle.write(chunk)
            lines += chunk.count("\n")
    return lines


def issue_records(*, study: Study) -> Iterable[dict[str, Any]]:
    """The study's issues in the shape ``import_issues`` reads (GitHub REST field names), metadata only."""
    rows = (
        Issue.objects.filter(study_issues__study=study)
        .order_by("study_issues__position")
        .values_list(
            "url",
            "number",
            "kind",
            "title",
            "state",
            "state_reason",
            "author",
            "labels",
            "created",
            "updated",
            "closed",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for url, number, kind, title, state, reason, author, labels, created, updated, closed in rows:
        yield {
            "html_url": url,
            "number": number,
            "kind": kind,
            "title": title,
            "state": state or None,
            "state_reason": reason or None,
            "author": author or None,
            "labels": labels or [],
            "created_at": created,
            "updated_at": updated,
            "closed_at": closed,
        }


def sample_records(*, study: Study) -> Iterable[dict[str, Any]]:
    rows = (
        StudyIssue.objects.filter(study=study)
        .order_by("position")
        .values_list("position", "round__number", "issue__url")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for position, round_number, url in rows:
        yield {"position": position, "round": round_number, "issue_url": url}


def study_record(*, study: Study, context: ExportContext) -> dict[str, Any]:
    version = study.taxonomy_version
    return {
        "format": PACKAGE_FORMAT,
        "name": study.name,
        "slug": study.slug,
        "description": study.description,
        "taxonomy": {"slug": version.taxonomy.slug, "version": version.number},
        "dimensions": [d.key for d in context.dimensions],
        "raters_per_issue": study.raters_per_issue,
        "assignment_mode": study.assignment_mode,
        "blind": study.blind,
        "phase": study.phase,
        "guidelines": study.guidelines,
        "agreement_threshold": float(study.agreement_threshold),
        "pilot_size": study.pilot_size,
        "raters": sorted(set(context.rater_labels.values()), key=lambda r: (len(r), r)),
        "rounds": [
            {
                "number": r.number,
                "kind": r.kind,
                "filters": r.filters,
                "size": r.size,
                "seed": r.seed,
                "stratification": r.stratification,
                "pool_size": r.pool_size,
                "drawn": r.drawn,
            }
            for r in study.rounds.order_by("number")
        ],
        "exported_at": timezone.now(),
    }


def _pseudonymised(value: Any, context: ExportContext) -> Any:
    if isinstance(value, str):
        return context.text(value)
    if isinstance(value, dict):
        return {k: _pseudonymised(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [_pseudonymised(v, context) for v in value]
    return value


# The packages whose versions the agreement figures depend on (the statistics and the ORM that reads the labels).
SOFTWARE = ("Django", "numpy", "scipy", "statsmodels", "krippendorff")


def software_versions() -> list[tuple[str, str]]:
    """Python and the exact installed version of each package in SOFTWARE."""
    return [("Python", platform.python_version())] + [(name, installed_version(name)) for name in SOFTWARE]


def _readme(study: Study, record: dict, counts: dict[str, int], citation: str | None = None) -> str:
    taxonomy = study.taxonomy_version.taxonomy
    lines = [
        f"# Replication package: {study.name}",
        "",
        study.description or "",
        "",
        f"Taxonomy: {taxonomy.name} ({taxonomy.slug}), version {study.taxonomy_version.number}. "
        f"Dimensions labelled: {', '.join(record['dimensions'])}. "
        f"{study.raters_per_issue} raters per issue; raters are named R1, R2, ... throughout.",
        "",
        "## Sample frame and seed",
        "",
        "Each round drew its issues at random from the frame below with the given seed, so the draw can be "
        "repeated on the same issue list.",
        "",
        "| round | kind | frame (filters) | stratification | seed | size | frame size | drawn |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in record["rounds"]:
        frame = json.dumps(r["filters"], sort_keys=True, ensure_ascii=False).replace("|", "\\|")
        strata = json.dumps(r["stratification"], sort_keys=True).replace("|", "\\|")
        lines.append(
            f"| {r['number']} | {r['kind']} | `{frame}` | `{strata}` | {r['seed']} | {r['size']} | "
            f"{r['pool_size']} | {r['drawn']} |"
        )
    lines += ["", "## How to cite", ""]
    lines.append(citation or f"Cite the study that made this dataset: {study.name}.")
    if taxonomy.citation:
        lines += ["", f"The taxonomy: {taxonomy.citation}"]
    if taxonomy.license:
        lines += ["", f"Taxonomy licence: {taxonomy.license}."]
    lines += ["", "## Software", "", "The agreement figures were computed with these exact versions:", ""]
    lines += [f"- {name} {version}" for name, version in software_versions()]
    lines += ["", "## Fix data", "", *FIX_DATA_README]
    lines += ["", "## Files", "", "| file | rows |", "| --- | --- |"]
    lines += [f"| {name} | {n} |" for name, n in sorted(counts.items())]
    lines += [
        "",
        "`SHA256SUMS` holds the SHA-256 checksum of every file; check them with `sha256sum -c SHA256SUMS`.",
        "",
        "Import the package into an empty instance with `python manage.py import_study_export <this zip>`.",
        "",
    ]
    return "\n".join(lines)


def replication_package_write(
    *,
    study: Study,
    target: Path,
    progress: Callable[[str, int, int], None] | None = None,
    citation: str | None = None,
) -> dict[str, int]:
    """Write the zip to ``target``; returns the rows per file. ``progress(step, done, total)`` per file.

    ``citation``: how to cite the package (a release's suggested citation); else the study's name."""
    # Imported here: the agreement code brings numpy, scipy and statsmodels, which a web worker that serves
    # only raters never needs in memory.
    from annotator.services.agreement import TABLE_COLUMNS, agreement_report, report_rows

    context = export_context(study=study, pseudonymous=True)
    template = version_template(version=study.taxonomy_version, dimension_keys=[d.key for d in context.dimensions])
    record = study_record(study=study, context=context)
    report = _pseudonymised(agreement_report(study=study), context)
    steps: list[tuple[str, Callable[[], Iterable[str]]]] = [
        ("taxonomy/taxonomy.json", lambda: [json.dumps(template, indent=2, ensure_ascii=False) + "\n"]),
        ("taxonomy/taxonomy.csv", lambda: csv_rows(TAXONOMY_CSV_HEADER, taxonomy_csv_rows(template))),
        (
            "taxonomy/codebook.md",
            lambda: [markdown_codebook({**template, "version": study.taxonomy_version.number})],
        ),
        ("data/issues.jsonl", lambda: jsonl_lines(issue_records(study=study))),
        ("data/sample.jsonl", lambda: jsonl_lines(sample_records(study=study))),
        ("data/labels.csv", lambda: csv_rows(rater_labels_header(context), rater_labels_rows(context))),
        ("data/labels.jsonl", lambda: jsonl_lines(rater_labels_records(context))),
        ("data/final_labels.csv", lambda: final_dataset_csv_lines(context)),
        ("data/final_labels.jsonl", lambda: final_dataset_jsonl_lines(context)),
        ("data/fixes.csv", lambda: csv_rows(fix_data_header(context), fix_data_rows(context))),
        ("agreement/agreement.json", lambda: [dumps(report, indent=2) + "\n"]),
        ("agreement/agreement.csv", lambda: csv_rows(TABLE_COLUMNS, report_rows(report))),
        ("study.json", lambda: [dumps(record, indent=2) + "\n"]),
    ]
    total = len(steps) + 2
    counts: dict[str, int] = {}
    folder = Path(tempfile.mkdtemp(prefix="replication-"))
    try:
        for done, (name, chunks) in enumerate(steps):
            if progress:
                progress(name, done, total)
            lines = _write(folder / name, chunks())
            # Data rows: a CSV's header line and a JSON document's lines are not rows.
            counts[name] = lines - 1 if name.endswith(".csv") else lines if name.endswith(".jsonl") else 1
        if progress:
            progress("README.md", len(steps), total)
        _write(folder / "README.md", [_readme(study, record, counts, citation)])
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        if progress:
            progress(MANIFEST, len(steps) + 1, total)
        (folder / MANIFEST).write_text(checksums_manifest(files, folder), encoding="utf-8")
        root = f"{study.slug}-replication"
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name in [*files, MANIFEST]:
                archive.write(folder / name, f"{root}/{name}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return counts
