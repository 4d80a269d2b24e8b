"""Importing a replication package (``replication_package_write``) into an instance: the round trip.

The package holds everything needed: the taxonomy in the template schema (loaded through the taxonomy
service, so an unchanged taxonomy is reused), the issues in the shape ``import_issues`` reads, the sample,
every rater's labels and the final labels. Raters become inactive accounts named by their pseudonym.
Everything is written in one transaction; files are read line by line and written in batches.
"""

import hashlib
import io
import json
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby, islice
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify

from annotator.importers.files import parse_issue_file
from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    Issue,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyMember,
    StudyRound,
)
from annotator.services.history import annotation_snapshot, resolution_snapshot
from annotator.services.issues import issues_upsert
from annotator.services.progress import rater_progress_rebuild
from annotator.services.resolutions import RaterLabels, compare_labels
from core.errors import DomainError
from taxonomy.models import Category, Dimension
from taxonomy.services.templates import taxonomy_template_load

from .package import MANIFEST, PACKAGE_FORMAT

BATCH = 2000


class PackageError(DomainError):
    pass


@dataclass(slots=True)
class StudyImportResult:
    study: Study
    issues_created: int = 0
    study_issues: int = 0
    annotations: int = 0
    resolutions: int = 0
    raters: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"study '{self.study.name}': {self.study_issues} issues ({self.issues_created} new), "
            f"{len(self.raters)} raters, {self.annotations} annotations, {self.resolutions} resolutions."
        )


class _Package:
    def __init__(self, archive: zipfile.ZipFile):
        self.archive = archive
        names = archive.namelist()
        manifests = [n for n in names if n.rsplit("/", 1)[-1] == MANIFEST]
        if not manifests:
            raise PackageError(f"This zip has no {MANIFEST}: it is not a replication package of this tool.")
        self.root = manifests[0][: -len(MANIFEST)]

    def read(self, name: str) -> bytes:
        try:
            return self.archive.read(self.root + name)
        except KeyError:
            raise PackageError(f"The package lacks {name}; build it again from the study's export page.") from None

    def lines(self, name: str) -> Iterator[dict]:
        try:
            handle = self.archive.open(self.root + name)
        except KeyError:
            raise PackageError(f"The package lacks {name}; build it again from the study's export page.") from None
        with io.TextIOWrapper(handle, encoding="utf-8") as text:
            for number, line in enumerate(text, start=1):
                if line.strip():
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise PackageError(f"{name} line {number} is not JSON ({exc.msg}).") from None

    def verify(self) -> None:
        """Every file listed in SHA256SUMS must have its checksum: a damaged package imports nothing."""
        bad = []
        for line in self.read(MANIFEST).decode("utf-8").splitlines():
            digest, _, name = line.partition("  ")
            found = hashlib.sha256()
            with self.archive.open(self.root + name) as handle:
                while chunk := handle.read(1 << 16):
                    found.update(chunk)
            if found.hexdigest() != digest:
                bad.append(name)
        if bad:
            raise PackageError(
                f"Checksums do not match for: {', '.join(bad)}. The package is damaged; download it again."
            )


def _when(value) -> datetime | None:
    return parse_datetime(value) if isinstance(value, str) and value else None


def _rater_user(pseudonym: str, slug: str):
    users = get_user_model()
    user = users.objects.filter(username=pseudonym).first()
    if user is None:
        user = users(username=pseudonym, is_active=False)
        user.set_unusable_password()
        user.save()
        return user
    if not user.is_active and not user.has_usable_password():
        return user  # a placeholder rater from an earlier import: reuse it
    return _rater_user(f"{pseudonym}-{slug}"[:150], slug)


def _taxonomy(package: _Package, record: dict):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{record['taxonomy']['slug']}.json"
        path.write_bytes(package.read("taxonomy/taxonomy.json"))
        version = taxonomy_template_load(source=path).version
    dimensions = {d.key: d for d in Dimension.objects.filter(version=version, key__in=record["dimensions"])}
    codes = {
        (key, code): pk
        for key, code, pk in Category.objects.filter(dimension__version=version).values_list(
            "dimension__key", "code", "pk"
        )
    }
    return version, dimensions, codes


def _ids(codes: dict, key: str, values: list[str], where: str) -> list[int]:
    try:
        return sorted({codes[(key, code)] for code in values})
    except KeyError as exc:
        raise PackageError(f"{where}: no category with code {exc.args[0][1]!r} in dimension '{key}'.") from None


def study_export_import(*, path: Path | str, name: str | None = None, owner=None) -> StudyImportResult:
    """Recreate the study of a replication package; ``name`` overrides the study's name (it must be new)."""
    with zipfile.ZipFile(path) as archive:
        package = _Package(archive)
        package.verify()
        record = json.loads(package.read("study.json"))
        if record.get("format") != PACKAGE_FORMAT:
            raise PackageError(f"Package format {record.get('format')} is not supported (expected {PACKAGE_FORMAT}).")
        with transaction.atomic():
            return _import(package, record, name or record["name"], owner)


def _import(package: _Package, record: dict, name: str, owner) -> StudyImportResult:
    if Study.objects.filter(name__iexact=name).exists():
        raise PackageError(f"A study named '{name}' exists already; import under another name (--name).")
    version, dimensions, codes = _taxonomy(package, record)
    parsed = parse_issue_file(package.read("data/issues.jsonl"), name="issues.jsonl", file_format="jsonl")
    if parsed.problems:
        raise PackageError(f"data/issues.jsonl has invalid records, e.g. {parsed.problems[0]}.")
    upserted = issues_upsert(records=parsed.records)
    slug = slugify(name)[:180] or "study"
    base, n = slug, 1
    while Study.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    study = Study.objects.create(
        name=name,
        slug=slug,
        description=record.get("description", ""),
        taxonomy_version=version,
        raters_per_issue=record.get("raters_per_issue", 2),
        assignment_mode=record.get("assignment_mode", Study.AssignmentMode.BALANCED),
        blind=record.get("blind", True),
        guidelines=record.get("guidelines", ""),
        phase=record.get("phase", Study.Phase.ADJUDICATION),
        agreement_threshold=record.get("agreement_threshold", 0.8),
        pilot_size=record.get("pilot_size", 0),
        created_by=owner,
    )
    study.dimensions.set(dimensions.values())
    raters = {pseudonym: _rater_user(pseudonym, slug) for pseudonym in record.get("raters", [])}
    members = [StudyMember(study=study, user=user, role=StudyMember.Role.RATER) for user in raters.values()]
    if owner is not None:
        members.append(StudyMember(study=study, user=owner, role=StudyMember.Role.OWNER))
    StudyMember.objects.bulk_create(members)
    rounds = {
        r["number"]: StudyRound.objects.create(
            study=study,
            number=r["number"],
            kind=r.get("kind", StudyRound.Kind.MAIN),
            filters=r.get("filters", {}),
            size=r.get("size", 0),
            seed=r.get("seed", 0),
            stratification=r.get("stratification", {}),
            pool_size=r.get("pool_size", 0),
            drawn=r.get("drawn", 0),
        )
        for r in record.get("rounds", [])
    }
    result = StudyImportResult(study=study, issues_created=upserted.created, raters=list(raters))
    study_issues = _sample(package, study, rounds)
    result.study_issues = len(study_issues)
    disputes = _labels(package, study_issues, raters, dimensions, codes, result)
    _resolutions(package, study_issues, codes, disputes, result)
    rater_progress_rebuild(study=study)  # the assignments' queue columns and the raters' progress counters
    return result


def _sample(package: _Package, study: Study, rounds: dict[int, StudyRound]) -> dict[str, int]:
    """The study's issues: url -> study issue id."""
    found: dict[str, int] = {}
    lines = package.lines("data/sample.jsonl")
    while batch := list(islice(lines, BATCH)):
        ids = dict(Issue.objects.filter(url__in=[r["issue_url"] for r in batch]).values_list("url", "pk"))
        missing = [r["issue_url"] for r in batch if r["issue_url"] not in ids]
        if missing:
            raise PackageError(
                f"data/sample.jsonl names issues missing from data/issues.jsonl: {', '.join(missing[:5])}."
            )
        if any(r["round"] not in rounds for r in batch):
            raise PackageError("data/sample.jsonl names a round that study.json does not list.")
        created = StudyIssue.objects.bulk_create(
            StudyIssue(study=study, issue_id=ids[r["issue_url"]], round=rounds[r["round"]], position=r["position"])
            for r in batch
        )
        found.update({r["issue_url"]: si.pk for r, si in zip(batch, created, strict=True)})
    return found


def _issue_batches(lines: Iterator[dict]) -> Iterator[list[dict]]:
    """Batches of about BATCH records that never split one issue's raters (so its disagreement is computed)."""
    batch: list[dict] = []
    for _, records in groupby(lines, key=lambda r: r["issue_url"]):
        batch.extend(records)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _labels(package, study_issues, raters, dimensions, codes, result) -> dict[str, list[str]]:
    """Assignments, annotations and their values; returns the dimensions the raters disagreed on, per issue."""
    disputes: dict[str, list[str]] = {}
    now = timezone.now()
    for batch in _issue_batches(package.lines("data/labels.jsonl")):
        assignments, annotations, values = [], [], []
        for r in batch:
            if r["issue_url"] not in study_issues or r["rater"] not in raters:
                raise PackageError(
                    f"data/labels.jsonl: {r['issue_url']} by {r['rater']} is not in the sample or raters."
                )
            submitted = _when(r.get("submitted_at")) or now
            assignments.append(
                Assignment(
                    study_issue_id=study_issues[r["issue_url"]],
                    rater=raters[r["rater"]],
                    status=Assignment.Status.SUBMITTED,
                    started_at=submitted,
                    submitted_at=submitted,
                )
            )
        assignments = Assignment.objects.bulk_create(assignments)
        for r, assignment in zip(batch, assignments, strict=True):
            annotations.append(
                Annotation(
                    assignment=assignment,
                    note=r.get("note", ""),
                    excluded=bool(r.get("excluded")),
                    excluded_reason=r.get("excluded_reason", ""),
                    confidence=r.get("confidence"),
                    proposals=r.get("proposals") or {},
                    time_spent_seconds=r.get("time_spent_seconds") or 0,
                    submitted_at=assignment.submitted_at,
                    frozen=True,
                )
            )
        annotations = Annotation.objects.bulk_create(annotations)
        per_issue: dict[str, list[RaterLabels]] = {}
        history = []
        for r, annotation in zip(batch, annotations, strict=True):
            ids = {key: _ids(codes, key, r["labels"].get(key, []), r["issue_url"]) for key in dimensions}
            ids = {key: v for key, v in ids.items() if v}
            for key, category_ids in ids.items():
                values += [
                    AnnotationValue(annotation=annotation, dimension=dimensions[key], category_id=c)
                    for c in category_ids
                ]
            per_issue.setdefault(r["issue_url"], []).append(
                RaterLabels(values=ids, proposals=annotation.proposals, excluded=annotation.excluded)
            )
            history.append(
                AnnotationHistory(
                    annotation=annotation,
                    action=AnnotationHistory.Action.SUBMIT,
                    version=annotation.version,
                    after=annotation_snapshot(annotation, values=ids),
                )
            )
        AnnotationValue.objects.bulk_create(values, batch_size=BATCH)
        AnnotationHistory.objects.bulk_create(history, batch_size=BATCH)
        for url, labels in per_issue.items():
            disputes[url] = compare_labels(labels, dimension_keys=list(dimensions)).disagreements
        result.annotations += len(annotations)
    return disputes


def _resolutions(package, study_issues, codes, disputes, result) -> None:
    lines = package.lines("data/final_labels.jsonl")
    now = timezone.now()
    while batch := list(islice(lines, BATCH)):
        rows = []
        for r in batch:
            keys = disputes.get(r["issue_url"], [])
            rows.append(
                Resolution(
                    study_issue_id=study_issues[r["issue_url"]],
                    values={
                        key: _ids(codes, key, label["codes"], r["issue_url"])
                        for key, label in sorted(r["labels"].items())
                    },
                    methods=r.get("methods") or {},
                    disagreement_keys="," + ",".join(keys) + "," if keys else "",
                    disagreement_count=len(keys),
                    status=Resolution.Status.RESOLVED,
                    excluded=bool(r.get("excluded")),
                    method=r.get("method") or Resolution.Method.UNANIMOUS,
                    disagreement_reason=r.get("disagreement_reason", ""),
                    note=r.get("note", ""),
                    decided_at=now,
                )
            )
        created = Resolution.objects.bulk_create(rows)
        ResolutionHistory.objects.bulk_create(
            ResolutionHistory(
                resolution=resolution,
                action=ResolutionHistory.Action.RECORD,
                version=resolution.version,
                after=resolution_snapshot(resolution),
            )
            for resolution in created
        )
        result.resolutions += len(created)
