"""The files of a release, built from the study as it is now by the existing readers and writers.

A release holds, frozen (see annotator/models/releases.py):

    study.json                 the public summary: study, taxonomy version, counts, the category tree with counts
    taxonomy.json              the taxonomy version in the template schema (``load_taxonomy`` reads it)
    dataset.jsonl              one public dataset row per resolved issue: final labels, each rater's revised and
                               independent labels, raters as R1, R2, ...
    dataset.csv                the same dataset as one CSV, cells guarded against spreadsheet formulas
    agreement.json             the agreement report, raters pseudonymised
    findings.json              the findings: every findings table and statistical test, as the live findings API
                               answers them (final labels joined with the fix data of data/fixes.csv)
    replication-package.zip    the replication package, built at the moment of publication
    README.md                  what the release is, its change note, how to cite it, its files with checksums
    CITATION.cff               the suggested citation in the Citation File Format
    SHA256SUMS                 every other file's SHA-256, in the format ``sha256sum -c`` checks

The content fingerprint covers the files whose content depends on the study's data only (not on the moment of
publication), and the replication package's fix data (data/fixes.csv): publishing again when it is unchanged is
refused. The findings and the fix data count: fix details imported again or component rules edited change what a
release says about fix size and time, so they allow a new release.
"""

import hashlib
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from annotator.exports import csv_rows
from annotator.exports.jsonl import dumps
from annotator.models import Study, StudyMember
from annotator.selectors.publication import (
    RELEASE_PSEUDONYMS,
    DatasetContext,
    categories_of_version,
    category_counts,
    counts_by_dimension,
    dataset_queryset,
    dataset_rows,
    pseudonymised_agreement,
)

from .exports.package import replication_package_write
from .exports.taxonomy import version_template

CHUNK = 500
JSON = "application/json"
FILE_TYPES = {
    "study.json": JSON,
    "taxonomy.json": JSON,
    "dataset.jsonl": "application/x-ndjson",
    "dataset.csv": "text/csv; charset=utf-8",
    "agreement.json": JSON,
    "findings.json": JSON,
    "replication-package.zip": "application/zip",
    "README.md": "text/markdown; charset=utf-8",
    "CITATION.cff": "text/plain; charset=utf-8",
    "SHA256SUMS": "text/plain; charset=utf-8",
}
DATA_FILES = ("study.json", "taxonomy.json", "dataset.jsonl", "agreement.json", "findings.json")
FIX_DATA = "replication-package.zip:data/fixes.csv"  # fingerprinted, from inside the package (built later)
# What each file is, for the README's file list.
FILE_DESCRIPTIONS = {
    "study.json": "the study, its taxonomy version and the count of each category",
    "taxonomy.json": "the taxonomy version (the template schema)",
    "dataset.jsonl": "one row per resolved issue: final labels, each rater's revised and independent labels",
    "dataset.csv": "the same dataset as CSV",
    "agreement.json": "the agreement report",
    "findings.json": "the findings: fix size and time per category and framework, components, flows, the tests",
    "replication-package.zip": "everything needed to recompute the figures, with the fix data (data/fixes.csv)",
    "CITATION.cff": "the suggested citation",
}
# Keys of the agreement report that say when it was computed, not what it says.
VOLATILE_AGREEMENT_KEYS = ("computed_at", "labels_version")


@dataclass(slots=True)
class ReleaseContent:
    """What a release of the study would hold now (without README, citation, checksums and package)."""

    summary: dict[str, Any]
    dataset: list[dict[str, Any]]
    files: dict[str, bytes] = field(default_factory=dict)
    fingerprint: str = ""
    pseudonyms: dict[int, str] = field(default_factory=dict)

    @property
    def figures(self) -> dict[str, Any]:
        """What the release row keeps: the summary's figures, and the pseudonyms its files use, which every later
        release keeps for the same people (member_pseudonyms)."""
        kept = {str(user_id): pseudonym for user_id, pseudonym in self.pseudonyms.items()}
        return {k: v for k, v in self.summary.items() if k != "dimensions"} | {RELEASE_PSEUDONYMS: kept}


def _json_bytes(value: Any) -> bytes:
    return (dumps(value, indent=2) + "\n").encode("utf-8")


def study_findings_document(*, study: Study) -> dict[str, Any]:
    """The study's findings as a release holds them: the tables of ``GET /api/v1/studies/{id}/findings/`` and every
    test of ``.../findings/tests/``, unpaged, with the study named by slug. Keys in a fixed order; a study without
    fix data has ``issues_with_fix`` 0 and the label tables only, as the live API answers."""
    # Imported here: the findings bring numpy, scipy and statsmodels, which only publishing needs.
    from annotator.services.findings import findings_as_json, stat_as_json, study_findings

    findings = study_findings(study=study)
    live = findings_as_json(findings, study.pk)
    return {
        "study": {"slug": study.slug, "name": study.name},
        "issues": live["issues"],
        "issues_with_fix": live["issues_with_fix"],
        "tables": live["tables"],
        "tests": [stat_as_json(item) for item in findings.tests],
    }


def _fix_data(study: Study) -> bytes:
    """The replication package's fix data (data/fixes.csv), which the content fingerprint covers too: a change the
    findings do not show (a new participant in a fix's discussion) still changes what the release carries."""
    from .exports.context import export_context
    from .exports.fix_data import fix_data_header, fix_data_rows

    context = export_context(study=study, pseudonymous=True)
    return "".join(csv_rows(fix_data_header(context), fix_data_rows(context))).encode("utf-8")


def study_summary(*, study: Study) -> dict[str, Any]:
    """The public summary of the study: what the public page and API show of it, without addresses."""
    version = study.taxonomy_version
    counted = category_counts(study=study, source="final")
    return {
        "slug": study.slug,
        "name": study.name,
        "description": study.description,
        "raters_per_issue": study.raters_per_issue,
        "agreement_threshold": float(study.agreement_threshold),
        "taxonomy": {
            "slug": version.taxonomy.slug,
            "name": version.taxonomy.name,
            "version": version.number,
            "citation": version.taxonomy.citation,
            "license": version.taxonomy.license,
        },
        "issues": counted["issues"],
        "excluded": counted["excluded"],
        "dimensions": counts_by_dimension(categories_of_version(study=study), counted["counts"], full=True),
    }


def _dataset(study: Study) -> tuple[DatasetContext, list[dict[str, Any]]]:
    context = DatasetContext(study)
    queryset = dataset_queryset(study=study)
    rows: list[dict[str, Any]] = []
    last = -1
    while True:  # keyset chunks on position, so each chunk's raters are read in one query
        chunk = list(queryset.filter(study_issue__position__gt=last)[:CHUNK])
        if not chunk:
            return context, rows
        last = chunk[-1].study_issue.position
        rows.extend(dataset_rows(context=context, resolutions=chunk))


CSV_HEAD = ["position", "round", "repository", "number", "url", "title", "excluded", "method"]


def dataset_csv(*, keys: list[str], rows: list[dict[str, Any]]) -> Iterator[str]:
    """The public dataset as CSV: final codes per dimension, then each rater's revised and independent labels."""
    header = [*CSV_HEAD, *keys, *(f"{key}_raters" for key in keys), *(f"{key}_raters_independent" for key in keys)]
    header += ["disagreements", "disagreement_reason", "note"]

    def per_rater(raters: list[dict], key: str, *, independent: bool) -> str:
        cells = []
        for rater in raters:
            layer = rater["independent"] if independent else rater
            if layer is None:
                continue
            shown = [*layer["labels"].get(key, []), *(f"proposed: {p}" for p in [layer["proposals"].get(key)] if p)]
            cells.append(f"{rater['rater']}: {', '.join(shown)}")
        return "; ".join(cells)

    def lines() -> Iterator[list]:
        for row in rows:
            issue = row["issue"]
            yield [
                row["position"],
                row["round"],
                issue["repository"] or "",
                issue["number"] if issue["number"] is not None else "",
                issue["url"],
                issue["title"],
                row["excluded"],
                row["method"],
                *("; ".join(row["labels"].get(key, [])) for key in keys),
                *(per_rater(row["raters"], key, independent=False) for key in keys),
                *(per_rater(row["raters"], key, independent=True) for key in keys),
                "; ".join(row["disagreements"]),
                row["disagreement_reason"],
                row["note"],
            ]

    return csv_rows(header, lines())


def release_content(*, study: Study) -> ReleaseContent:
    """The data files of a release of ``study`` as it is now, and their fingerprint."""
    # Imported here: the agreement code brings numpy, scipy and statsmodels (see annotator/api/agreement.py).
    from annotator.services.agreement import agreement_report

    summary = study_summary(study=study)
    context, rows = _dataset(study)
    report = pseudonymised_agreement(report=agreement_report(study=study), pseudonyms=context.pseudonyms)
    agreement = {
        "study": {"slug": study.slug, "name": study.name, "agreement_threshold": float(study.agreement_threshold)}
    } | report
    template = version_template(version=study.taxonomy_version, dimension_keys=context.dimension_keys)
    files = {
        "study.json": _json_bytes(summary),
        "taxonomy.json": (json.dumps(template, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
        "dataset.jsonl": "".join(dumps(row) + "\n" for row in rows).encode("utf-8"),
        "dataset.csv": "".join(dataset_csv(keys=context.dimension_keys, rows=rows)).encode("utf-8"),
        "agreement.json": _json_bytes(agreement),
        "findings.json": _json_bytes(study_findings_document(study=study)),
    }
    digest = hashlib.sha256()
    stable = {k: v for k, v in agreement.items() if k not in VOLATILE_AGREEMENT_KEYS}
    fingerprinted = [(name, _json_bytes(stable) if name == "agreement.json" else files[name]) for name in DATA_FILES]
    fingerprinted.append((FIX_DATA, _fix_data(study)))
    for name, data in fingerprinted:
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return ReleaseContent(
        summary=summary, dataset=rows, files=files, fingerprint=digest.hexdigest(), pseudonyms=context.pseudonyms
    )


# --- citation -------------------------------------------------------------------------------------------


def study_authors(*, study: Study) -> list[str]:
    """The study's owners by the name in their account (full name, else display name), in the order they joined.

    Usernames are never published: an owner without a name is left out of the citation."""
    owners = StudyMember.objects.filter(study=study, role=StudyMember.Role.OWNER).select_related("user")
    names = []
    for member in owners.order_by("added_at", "id"):
        user = member.user
        name = (user.get_full_name() or user.display_name).strip()
        if name and name not in names:
            names.append(name)
    return names


@dataclass(frozen=True, slots=True)
class Citation:
    authors: list[str]
    title: str
    number: int
    date: datetime
    url: str

    @property
    def text(self) -> str:
        where = f" {self.url}" if self.url else ""
        what = f"{self.title}, release {self.number} ({self.date:%Y-%m-%d}) [Data set].{where}"
        return f"{', '.join(self.authors)} ({self.date:%Y}). {what}" if self.authors else what

    @property
    def cff(self) -> str:
        def quoted(value: str) -> str:
            return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar

        lines = [
            "cff-version: 1.2.0",
            'message: "If you use this dataset, please cite it as below."',
            "type: dataset",
            f"title: {quoted(self.title)}",
            f'version: "{self.number}"',
            f'date-released: "{self.date:%Y-%m-%d}"',
        ]
        if self.url:
            lines.append(f"url: {quoted(self.url)}")
        lines.append("authors:")  # the Citation File Format requires at least one
        lines += [f"  - name: {quoted(name)}" for name in self.authors or [f"The authors of {self.title}"]]
        return "\n".join(lines) + "\n"


def _overlap_sentence(study: Study) -> str:
    """With partial overlap, what was double-coded: a paper reports agreement on that subset only."""
    # Imported here: the agreement selectors load the numerical libraries, which only publishing needs.
    from annotator.selectors.agreement import study_reliability_subset

    subset = study_reliability_subset(study=study)
    if not subset["partial"]:
        return ""
    return (
        f" Partial overlap: {subset['double_coded']} of {subset['issues']} issues were double-coded (the reliability "
        "subset, on which agreement is computed); the others were labelled by one rater, whose labels are final."
    )


def _findings_sentence(files: dict[str, bytes]) -> str:
    findings = json.loads(files["findings.json"])
    what = (
        "`findings.json` holds the findings as the app showed them at publication: every table and statistical "
        "test (n, the test used, statistic, df, p, corrected p, effect size)"
    )
    if not findings["issues_with_fix"]:
        return f"{what}. No issue had fix data, so only the tables of final labels have rows."
    return (
        f"{what}, over {findings['issues']} issues, {findings['issues_with_fix']} with fix data; "
        "`data/fixes.csv` in the replication package holds the fix data they are computed from."
    )


def release_readme(
    *, study: Study, citation: Citation, change_note: str, files: dict[str, bytes], summary: dict[str, Any]
) -> str:
    taxonomy = summary["taxonomy"]
    lines = [
        f"# {summary['name']}: release {citation.number}",
        "",
        f"Published {citation.date:%Y-%m-%d %H:%M} UTC" + (f" at {citation.url}" if citation.url else "") + ".",
        "This release is frozen: its files never change. A later change of the study is published as a new release.",
        "",
    ]
    if summary["description"]:
        lines += [summary["description"], ""]
    lines += [
        f"Taxonomy: {taxonomy['name']} ({taxonomy['slug']}), version {taxonomy['version']}. "
        f"{summary['issues']} issues with a final label ({summary['excluded']} excluded); "
        f"{summary['raters_per_issue']} raters per issue, named R1, R2, ... throughout." + _overlap_sentence(study),
        "",
    ]
    if change_note:
        lines += [f"## Changes since release {citation.number - 1}", "", change_note.strip(), ""]
    lines += ["## How to cite", "", citation.text, ""]
    if taxonomy["citation"]:
        lines += [f"The taxonomy: {taxonomy['citation']}", ""]
    lines += ["## Files", "", "| file | what | bytes | SHA-256 |", "| --- | --- | --- | --- |"]
    lines += [
        f"| {name} | {FILE_DESCRIPTIONS.get(name, '')} | {len(data)} | `{hashlib.sha256(data).hexdigest()}` |"
        for name, data in sorted(files.items())
    ]
    lines += ["", "`SHA256SUMS` lists every file but itself; check them with `sha256sum -c SHA256SUMS`.", ""]
    lines += [_findings_sentence(files), ""]
    return "\n".join(lines)


def release_files(*, study: Study, content: ReleaseContent, citation: Citation, change_note: str) -> dict[str, bytes]:
    """Every file of the release: the data files, the replication package, README, CITATION.cff, SHA256SUMS."""
    files = dict(content.files)
    with tempfile.TemporaryDirectory(prefix="release-") as folder:
        target = Path(folder) / "package.zip"
        replication_package_write(study=study, target=target, citation=citation.text)
        files["replication-package.zip"] = target.read_bytes()
    files["CITATION.cff"] = citation.cff.encode("utf-8")
    readme = release_readme(
        study=study, citation=citation, change_note=change_note, files=files, summary=content.summary
    )
    files["README.md"] = readme.encode("utf-8")
    files["SHA256SUMS"] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items())
    ).encode("utf-8")
    return files


def dataset_changes(*, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, int]:
    """How the dataset differs between two releases (rows keyed by issue URL)."""
    old = {row["issue"]["url"]: row for row in before}
    new = {row["issue"]["url"]: json.loads(dumps(row)) for row in after}  # compared as they would be stored
    common = old.keys() & new.keys()

    def final(row: dict) -> tuple:
        return row["excluded"], row["labels"]

    return {
        "issues_added": len(new.keys() - old.keys()),
        "issues_removed": len(old.keys() - new.keys()),
        "final_labels_changed": sum(1 for url in common if final(old[url]) != final(new[url])),
        "rows_changed": sum(1 for url in common if old[url] != new[url]),
    }
