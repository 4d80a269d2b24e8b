"""Importing a replication package (``replication_package_write``) into an instance: the round trip.

The package holds everything needed: the taxonomy in the template schema (loaded through the taxonomy
service, so an unchanged taxonomy is reused), the issues in the shape ``import_issues`` reads, the sample,
every rater's labels and the final labels. Raters become inactive accounts named by their pseudonym.

A package comes from outside, so it is read as hostile: the archive's stated sizes are checked against the
limits before anything is decompressed, files are streamed line by line with a cap on a line's length,
every record of every file is checked against the package schema (``package_schema``) before anything is
written, and no value from the package ever names a file. Then everything is written in one transaction,
in batches; a reference that does not hold (a sample naming an unknown issue) rolls it all back.
"""

import hashlib
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby, islice
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify

from annotator.importers.archives import ArchiveLimits, ArchiveTooLarge, archive_check, bounded_lines, format_bytes
from annotator.importers.files import record_from_mapping
from annotator.importers.files.fields import InvalidRecord
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
from annotator.selectors.resolution_values import PROPOSAL_MARK, ProposedLabel
from annotator.services.history import annotation_snapshot, resolution_snapshot
from annotator.services.issues import issues_upsert
from annotator.services.progress import rater_progress_rebuild
from annotator.services.resolutions import RaterLabels, compare_labels
from annotator.services.resolutions.values import resolutions_bulk_create
from core.errors import DomainError, PermissionDeniedError
from core.permissions import can_manage_imports
from taxonomy.models import Category, Dimension
from taxonomy.services.templates import taxonomy_template_record_load
from taxonomy.template_schema import CategoryRecord, TemplateInvalid, TemplateRecord, parse_template

from .first_layer import first_submissions_restore
from .package import MANIFEST, PACKAGE_FORMAT
from .package_schema import parse_json, record_problems

BATCH = 2000
LINE_MAX_BYTES = 4 << 20  # one JSON Lines record; the writer's longest are a few kilobytes
DOCUMENT_MAX_BYTES = 16 << 20  # study.json, taxonomy/taxonomy.json and SHA256SUMS are read whole
PROBLEMS_SHOWN = 20
STUDY_FILE = "study.json"
TAXONOMY_FILE = "taxonomy/taxonomy.json"
ISSUES_FILE = "data/issues.jsonl"
SAMPLE_FILE = "data/sample.jsonl"
LABELS_FILE = "data/labels.jsonl"
FINAL_FILE = "data/final_labels.jsonl"
READ_FILES = (STUDY_FILE, TAXONOMY_FILE, ISSUES_FILE, SAMPLE_FILE, LABELS_FILE, FINAL_FILE)


class PackageError(DomainError):
    """A package that cannot be imported. ``problems`` has one line per problem: file, line, field, what."""

    def __init__(self, message: str, *, problems: list[str] | None = None):
        self.problems = problems or []
        shown = self.problems[:PROBLEMS_SHOWN]
        text = message if not shown else message + "\n" + "\n".join(f"  {p}" for p in shown)
        super().__init__(text)


def package_limits() -> ArchiveLimits:
    return ArchiveLimits(
        max_total_bytes=settings.PACKAGE_MAX_UNCOMPRESSED_BYTES,
        max_entry_bytes=settings.PACKAGE_MAX_ENTRY_BYTES,
        max_entries=settings.PACKAGE_MAX_ENTRIES,
    )


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


@contextmanager
def _readable(what: str):
    """Damage found while decompressing (a failed CRC, a truncated stream) ends as a PackageError."""
    try:
        yield
    except ArchiveTooLarge as exc:
        raise PackageError(str(exc)) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise PackageError(f"{what} cannot be read ({exc}); the package is damaged, download it again.") from None


class _Package:
    """The files of a package, found by their place under the folder that holds SHA256SUMS; never extracted."""

    def __init__(self, archive: zipfile.ZipFile, *, name: str):
        self.archive = archive
        with _readable(name):
            archive_check(archive, package_limits(), name=name)
        manifests = sorted(n for n in archive.namelist() if n.rsplit("/", 1)[-1] == MANIFEST)
        if not manifests:
            raise PackageError(f"This zip has no {MANIFEST}: it is not a replication package of this tool.")
        self.root = manifests[0][: -len(MANIFEST)]

    def _open(self, name: str):
        try:
            return self.archive.open(self.root + name)
        except KeyError:
            raise PackageError(f"The package lacks {name}; build it again from the study's export page.") from None

    def read(self, name: str, *, max_bytes: int = DOCUMENT_MAX_BYTES) -> bytes:
        with _readable(name), self._open(name) as handle:
            data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise PackageError(f"{name} is larger than {format_bytes(max_bytes)}; it is not a file this tool wrote.")
        return data

    def document(self, name: str) -> Any:
        try:
            return parse_json(self.read(name))
        except ValueError as exc:
            raise PackageError(f"{name} is {exc}.") from None

    def records(self, name: str) -> Iterator[tuple[int, Any]]:
        """(line number, JSON value) per non-empty line, one line in memory at a time."""
        with _readable(name), self._open(name) as handle:
            for number, line in bounded_lines(handle, max_line_bytes=LINE_MAX_BYTES, name=name):
                if not line.strip():
                    continue
                try:
                    yield number, parse_json(line)
                except ValueError as exc:
                    raise PackageError(f"{name} line {number} is {exc}.") from None

    def lines(self, name: str) -> Iterator[dict]:
        return (record for _, record in self.records(name))

    def verify(self) -> None:
        """Every file listed in SHA256SUMS must have its checksum: a damaged package imports nothing."""
        try:
            manifest = self.read(MANIFEST).decode("utf-8")
        except UnicodeDecodeError:
            raise PackageError(f"{MANIFEST} is not UTF-8 text; the package is damaged.") from None
        listed, bad = set(), []
        for line in manifest.splitlines():
            digest, _, name = line.partition("  ")
            listed.add(name)
            found = hashlib.sha256()
            with _readable(name), self._open(name) as handle:
                while chunk := handle.read(1 << 16):
                    found.update(chunk)
            if found.hexdigest() != digest:
                bad.append(name)
        if bad:
            raise PackageError(
                f"Checksums do not match for: {', '.join(bad)}. The package is damaged; download it again."
            )
        unlisted = [name for name in READ_FILES if name not in listed]
        if unlisted:
            raise PackageError(f"{MANIFEST} does not list {', '.join(unlisted)}; the package is incomplete.")


@dataclass(slots=True)
class _Checked:
    """What the validation pass learnt and the writing pass needs (all of it small)."""

    study: dict
    template: TemplateRecord
    problems: list[str] = field(default_factory=list)


def _all_codes(categories: list[CategoryRecord]) -> Iterator[str]:
    for category in categories:
        yield category.code
        yield from _all_codes(category.children)


def _validate(package: _Package) -> _Checked:
    """Check every record of every file against the schema and the taxonomy; raise listing the problems."""
    study = package.document(STUDY_FILE)
    problems = [f"{STUDY_FILE}: {p}" for p in record_problems(STUDY_FILE, study)]
    if problems:
        raise PackageError(
            "The package was not imported: study.json does not fit the package schema.", problems=problems
        )
    if study["format"] != PACKAGE_FORMAT:
        raise PackageError(f"Package format {study['format']} is not supported (expected {PACKAGE_FORMAT}).")
    try:
        template = parse_template(package.read(TAXONOMY_FILE), filename=TAXONOMY_FILE)
    except TemplateInvalid as exc:
        raise PackageError("The package was not imported: its taxonomy is not valid.", problems=exc.lines) from None
    if template.slug != study["taxonomy"]["slug"]:
        problems.append(
            f"{STUDY_FILE}: $.taxonomy.slug: {study['taxonomy']['slug']!r} is not the slug of {TAXONOMY_FILE} "
            f"({template.slug!r})"
        )
    codes = {d.key: set(_all_codes(d.categories)) for d in template.dimensions}
    for i, key in enumerate(study["dimensions"]):
        if key not in codes:
            problems.append(f"{STUDY_FILE}: $.dimensions[{i}]: no dimension {key!r} in {TAXONOMY_FILE}")
    rounds = [r["number"] for r in study["rounds"]]
    if len(set(rounds)) != len(rounds):
        problems.append(f"{STUDY_FILE}: $.rounds: a round number appears twice")
    raters = set(study["raters"])
    checked = _Checked(study=study, template=template, problems=problems)
    for name, check in (
        (ISSUES_FILE, _issue_problems),
        (SAMPLE_FILE, lambda r: [] if r["round"] in rounds else [f"$.round: round {r['round']} is not in study.json"]),
        (LABELS_FILE, lambda r: _label_problems(r, codes, raters)),
        (FINAL_FILE, lambda r: _final_problems(r, codes)),
    ):
        for number, record in package.records(name):
            found = list(record_problems(name, record))
            if not found:
                found = check(record)
            problems.extend(f"{name} line {number}: {p}" for p in found)
            if len(problems) >= PROBLEMS_SHOWN:
                break
        if len(problems) >= PROBLEMS_SHOWN:
            break
    if problems:
        raise PackageError(
            "The package was not imported: some records do not fit the package schema.", problems=problems
        )
    return checked


def _issue_problems(record: dict) -> list[str]:
    try:
        record_from_mapping(record)
    except InvalidRecord as exc:
        return [f"$.{p.field}: {p.message}" for p in exc.problems]
    return []


def _unknown_codes(key: str, values: list[str], codes: dict[str, set[str]], where: str) -> list[str]:
    if key not in codes:
        return [f"{where}: no dimension {key!r} in {TAXONOMY_FILE}"]
    return [
        f"{where}: no category with code {code!r} in dimension {key!r}" for code in values if code not in codes[key]
    ]


def _label_problems(record: dict, codes: dict[str, set[str]], raters: set[str]) -> list[str]:
    problems = [] if record["rater"] in raters else [f"$.rater: {record['rater']!r} is not among study.json's raters"]
    for key, values in record["labels"].items():
        problems += _unknown_codes(key, values, codes, f"$.labels.{key}")
    return problems


def _final_problems(record: dict, codes: dict[str, set[str]]) -> list[str]:
    problems = []
    for key, label in record["labels"].items():
        # "proposal: <text>": a final label settled on a rater's proposal, matched to that rater's proposal later.
        wanted = [code for code in label["codes"] if not str(code).startswith(PROPOSAL_MARK)]
        problems += _unknown_codes(key, wanted, codes, f"$.labels.{key}.codes")
    return problems


def _final_labels(codes: dict, record: dict, proposals: dict[tuple[str, str], int]) -> dict[str, list]:
    """A final record's labels: category ids, and ProposedLabel for a "proposal: <text>" code, which must be the
    proposal one of the issue's raters made in that dimension (``proposals``: (key, text) -> annotation id)."""
    labels: dict[str, list] = {}
    for key, label in sorted(record["labels"].items()):
        marked = [str(c) for c in label["codes"] if str(c).startswith(PROPOSAL_MARK)]
        values: list = _ids(codes, key, [c for c in label["codes"] if str(c) not in marked], record["issue_url"])
        for code in marked:
            text = code[len(PROPOSAL_MARK) :]
            annotation_id = proposals.get((key, text))
            if annotation_id is None:
                raise PackageError(
                    f"{FINAL_FILE}: {record['issue_url']}: no rater of the issue proposed {text!r} in '{key}'."
                )
            values.append(ProposedLabel(text, annotation_id))
        labels[key] = values
    return labels


def _batch_proposals(study_issue_ids: list[int]) -> dict[int, dict[tuple[str, str], int]]:
    """Per study issue, (dimension key, proposal text) -> the annotation that proposed it (one query)."""
    found: dict[int, dict[tuple[str, str], int]] = {}
    rows = (
        Annotation.objects.filter(assignment__study_issue_id__in=study_issue_ids)
        .exclude(proposals={})
        .order_by("pk")
        .values_list("pk", "assignment__study_issue_id", "proposals")
    )
    for pk, study_issue_id, proposals in rows:
        for key, text in (proposals or {}).items():
            found.setdefault(study_issue_id, {}).setdefault((key, str(text)), pk)
    return found


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


def _taxonomy(template: TemplateRecord, record: dict, actor):
    # From the parsed template, never through a file: no value of the package names a path. A taxonomy that
    # is not here yet is a taxonomy edit, the actor's only if they maintain taxonomies.
    version = taxonomy_template_record_load(record=template, source_name=f"{template.slug}.json", actor=actor).version
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


def study_export_import(*, path: Path | str, name: str | None = None, owner=None, actor=None) -> StudyImportResult:
    """Recreate the study of a replication package; ``name`` overrides the study's name (it must be new).

    ``actor``: who runs the import (None: the system, an operator at the command line); a user must be allowed
    to manage imports, and to maintain taxonomies if the package's taxonomy is not here yet. ``owner`` owns
    the new study."""
    if actor is not None and not can_manage_imports(actor):
        raise PermissionDeniedError("Only study owners and staff can import a replication package.")
    if name is not None and not name.strip():
        name = None
    if name is not None and len(name) > 200:
        raise PackageError("A study's name has at most 200 characters.")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise PackageError(f"{Path(path).name} is not a readable zip ({exc}); download the package again.") from None
    with archive:
        package = _Package(archive, name=Path(path).name)
        package.verify()
        checked = _validate(package)
        with transaction.atomic():
            return _import(package, checked, name or checked.study["name"], owner, actor)


def _import(package: _Package, checked: _Checked, name: str, owner, actor) -> StudyImportResult:
    record = checked.study
    if Study.objects.filter(name__iexact=name).exists():
        raise PackageError(f"A study named '{name}' exists already; import under another name (--name).")
    version, dimensions, codes = _taxonomy(checked.template, record, actor)
    issues_created = _issues(package)
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
        # A study is published here only by publishing a release of it: an imported "published" study is not yet.
        phase=_imported_phase(record.get("phase", Study.Phase.ADJUDICATION)),
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
    result = StudyImportResult(study=study, issues_created=issues_created, raters=list(raters))
    study_issues = _sample(package, study, rounds)
    result.study_issues = len(study_issues)
    disputes = _labels(package, study_issues, raters, dimensions, codes, result)
    _resolutions(package, study_issues, codes, disputes, result)
    rater_progress_rebuild(study=study)  # the assignments' queue columns and the raters' progress counters
    return result


def _issues(package: _Package) -> int:
    """Upsert the issues batch by batch (the records were checked by ``_validate``); returns how many are new."""
    created = 0
    lines = package.lines(ISSUES_FILE)
    while batch := list(islice(lines, BATCH)):
        created += issues_upsert(records=[record_from_mapping(r) for r in batch]).created
    return created


def _sample(package: _Package, study: Study, rounds: dict[int, StudyRound]) -> dict[str, int]:
    """The study's issues: url -> study issue id."""
    found: dict[str, int] = {}
    positions: set[int] = set()
    lines = package.lines(SAMPLE_FILE)
    while batch := list(islice(lines, BATCH)):
        ids = dict(Issue.objects.filter(url__in=[r["issue_url"] for r in batch]).values_list("url", "pk"))
        missing = [r["issue_url"] for r in batch if r["issue_url"] not in ids]
        if missing:
            raise PackageError(f"{SAMPLE_FILE} names issues missing from {ISSUES_FILE}: {', '.join(missing[:5])}.")
        for r in batch:
            if r["issue_url"] in found or r["position"] in positions:
                raise PackageError(f"{SAMPLE_FILE}: {r['issue_url']} or position {r['position']} appears twice.")
            found[r["issue_url"]] = 0
            positions.add(r["position"])
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
    labelled: set[tuple[str, str]] = set()
    now = timezone.now()
    for batch in _issue_batches(package.lines(LABELS_FILE)):
        assignments, annotations, values = [], [], []
        for r in batch:
            if r["issue_url"] not in study_issues or (r["issue_url"], r["rater"]) in labelled:
                raise PackageError(
                    f"{LABELS_FILE}: {r['issue_url']} by {r['rater']} is not in the sample, or appears twice."
                )
            labelled.add((r["issue_url"], r["rater"]))
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
        independent = first_submissions_restore(
            records=batch, annotations=annotations, dimensions=dimensions, ids=lambda *a: _ids(codes, *a)
        )
        for url, labels in per_issue.items():
            now_differ = compare_labels(labels, dimension_keys=list(dimensions)).disagreements
            disputes[url] = list(dict.fromkeys([*independent.get(url, []), *now_differ]))  # never forgotten
        result.annotations += len(annotations)
    return disputes


def _resolutions(package, study_issues, codes, disputes, result) -> None:
    lines = package.lines(FINAL_FILE)
    resolved: set[str] = set()
    now = timezone.now()
    while batch := list(islice(lines, BATCH)):
        rows = []
        proposals = _batch_proposals([study_issues[r["issue_url"]] for r in batch if r["issue_url"] in study_issues])
        for r in batch:
            if r["issue_url"] not in study_issues or r["issue_url"] in resolved:
                raise PackageError(f"{FINAL_FILE}: {r['issue_url']} is not in the sample, or appears twice.")
            resolved.add(r["issue_url"])
            keys = disputes.get(r["issue_url"], [])
            labels = _final_labels(codes, r, proposals.get(study_issues[r["issue_url"]], {}))
            if r.get("excluded"):
                labels = {}  # an excluded issue has no final labels
            method = r.get("method") or Resolution.Method.UNANIMOUS
            # A dimension with a label is decided, and a decided dimension has its method.
            methods = {**dict.fromkeys(labels, method), **(r.get("methods") or {})}
            rows.append(
                (
                    Resolution(
                        study_issue_id=study_issues[r["issue_url"]],
                        methods=methods,
                        disagreement_keys="," + ",".join(keys) + "," if keys else "",
                        disagreement_count=len(keys),
                        status=Resolution.Status.RESOLVED,
                        excluded=bool(r.get("excluded")),
                        method=method,
                        disagreement_reason=r.get("disagreement_reason", ""),
                        note=r.get("note", ""),
                        decided_at=now,
                    ),
                    labels,
                )
            )
        version_id = StudyIssue.objects.filter(pk=rows[0][0].study_issue_id).values_list(
            "study__taxonomy_version_id", flat=True
        )[0]
        created = resolutions_bulk_create(rows, version_id=version_id)
        ResolutionHistory.objects.bulk_create(
            ResolutionHistory(
                resolution=resolution,
                action=ResolutionHistory.Action.RECORD,
                version=resolution.version,
                after=resolution_snapshot(resolution, labels=labels),
            )
            for resolution, (_, labels) in zip(created, rows, strict=True)
        )
        result.resolutions += len(created)


def _imported_phase(phase: str) -> str:
    return Study.Phase.ADJUDICATION if phase == Study.Phase.PUBLISHED else phase
