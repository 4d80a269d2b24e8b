"""File imports: validate a file, then upsert its issues; recorded as an ImportJob, queued when started from
the browser, run here and now from the command line (which records its other imports the same way).

Default rule, for the command and the browser alike: the whole file is validated first and nothing
is written if any record is invalid. With skip_invalid the valid records are imported and the
others listed.
"""

import io
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import IO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import UploadedFile
from django.db import DatabaseError, DataError, IntegrityError, transaction
from django.utils import timezone

from annotator.importers.files import ParseResult, parse_repository_ref, read_issue_file
from annotator.importers.records import IssueRecord, RecordProblem, RepositoryRef
from annotator.models import ImportJob
from core.errors import DomainError, NotFoundError, PermissionDeniedError
from core.permissions import can_manage_imports

from .issues import UpsertResult, imported_issues_record, issues_conflicts, issues_upsert
from .jobs import job_enqueue_on_commit, job_queued_or_raise, job_run
from .sheets_import import SheetsImportError, SheetsImportRequest, SheetsImportResult, sheets_import

logger = logging.getLogger(__name__)

ALLOWED_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".txt")
# Problems kept on a job: enough to fix a file; the count says how many there were in all.
STORED_PROBLEMS = 500
# A batch also ends at this much text, so a file of long issues (pasted logs) needs no more memory
# than one of short ones: a batch's rows, their hashes and the INSERT built from them are held at once.
BATCH_CHARS = 4_000_000


@dataclass(slots=True)
class FileImportOutcome:
    parsed: ParseResult
    result: UpsertResult | None  # None: nothing was written because some records are invalid

    @property
    def written(self) -> bool:
        return self.result is not None

    def counts(self) -> dict[str, int]:
        counts = {"records": self.parsed.total, "invalid": self.parsed.invalid}
        if self.result is not None:
            counts.update(self.result.as_counts())
        return counts

    def summary(self) -> str:
        r = self.result or UpsertResult()
        return (
            f"created {r.created}, updated {r.updated}, unchanged {r.unchanged}, invalid {self.parsed.invalid} "
            f"(comments: created {r.comments_created}, updated {r.comments_updated})"
        )


class FileImportRefused(DomainError):
    """The database refused part of a file although it passed validation; nothing was written."""


class _Invalid(Exception):
    """Raised inside the import's transaction to undo it: some records are invalid."""


def repository_ref_from_text(text: str | None) -> RepositoryRef | None:
    """The --repo / form value as a RepositoryRef; a DomainError a person can act on if it is not one."""
    if not text or not text.strip():
        return None
    try:
        return parse_repository_ref(text)
    except ValueError as exc:
        raise DomainError(str(exc), field="repo") from None


def file_import_execute(
    *,
    data: bytes | IO[bytes],
    name: str,
    repository: RepositoryRef | None = None,
    skip_invalid: bool = False,
    batch_size: int = 1000,
    progress: Callable[[int], None] | None = None,
    job: ImportJob | None = None,
) -> FileImportOutcome:
    """Read, validate and upsert a file's records as one transaction: all of them, or none.

    With `job`, every issue the file names is recorded as part of that import batch (a study's frame may be it).

    The file is read as a stream, a batch of records at a time. A record that is invalid, or that would
    move a stored issue to another repository, is listed; without skip_invalid, the first one stops the
    writing, the rest of the file is still checked (so every problem is listed) and the transaction is
    rolled back. A failure of any kind (the database, the connection, the process) leaves nothing visible.
    `progress` is called with the number of records written after each batch.
    """
    stream = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    parsed = ParseResult([], [], 0, "unknown")
    result = UpsertResult()
    batch: list[tuple[str, IssueRecord]] = []
    known: dict = {}

    def flush() -> None:
        records = [record for _, record in batch]
        conflicts = issues_conflicts(records=records, known=known)
        for index, (field, message) in sorted(conflicts.items()):
            parsed.add_problem(RecordProblem(batch[index][0], field, message))
        writing = skip_invalid or not parsed.has_problems
        if writing:
            valid = [r for i, r in enumerate(records) if i not in conflicts]
            try:
                with transaction.atomic():
                    written = issues_upsert(records=valid, batch_size=len(valid) or 1)
                    if job is not None:
                        imported_issues_record(job=job, issue_ids=written.issue_ids)
            except (DataError, IntegrityError) as exc:
                logger.warning("the database refused records of %s", name, exc_info=True)
                first, last = batch[0][0], batch[-1][0]
                raise FileImportRefused(
                    f"The database refused a record between {first} and {last} ({type(exc).__name__}); "
                    "nothing was imported. Check those records, or report this with the file."
                ) from exc
            _add_counts(result, written)
            if progress is not None:
                progress(len(valid))
        batch.clear()

    try:
        with transaction.atomic():
            batch_chars = 0
            for item in read_issue_file(stream, name=name, result=parsed, repository=repository):
                batch.append(item)
                batch_chars += _text_size(item[1])
                if len(batch) >= batch_size or batch_chars >= BATCH_CHARS:
                    flush()
                    batch_chars = 0
            if batch:
                flush()
            if parsed.has_problems and not skip_invalid:
                raise _Invalid
    except _Invalid:
        return FileImportOutcome(parsed=parsed, result=None)
    return FileImportOutcome(parsed=parsed, result=result)


def _text_size(record: IssueRecord) -> int:
    """Roughly how much text a record holds: its body and its comments' bodies dominate."""
    return len(record.body) + len(record.title) + sum(len(c.body) for c in record.comments or ()) + 1000


def _add_counts(total: UpsertResult, part: UpsertResult) -> None:
    for name, value in part.as_counts().items():
        setattr(total, name, getattr(total, name) + value)


def problems_message(problems: list[RecordProblem], *, limit: int = 50, total: int | None = None) -> list[str]:
    """Problems as lines for a person, the first `limit` of them and then how many more (of `total`)."""
    total = len(problems) if total is None else total
    lines = [str(p) for p in problems[:limit]]
    if total > limit:
        lines.append(f"... and {total - limit} more")
    return lines


# --------------------------------------------------------------------------- ImportJob lifecycle


def file_import_create(*, user, upload: UploadedFile, repo: str = "", skip_invalid: bool = False) -> ImportJob:
    """Store the uploaded file as a pending ImportJob and queue it; the task runs after the commit."""
    if not can_manage_imports(user):
        raise PermissionDeniedError("Only study owners can import issues.")
    repository = repository_ref_from_text(repo)
    filename = PurePath(upload.name or "upload").name
    if not filename.lower().endswith(ALLOWED_SUFFIXES):
        raise DomainError(
            f"'{filename}' is not a JSON, JSON Lines or CSV file; use .json, .jsonl or .csv.", field="upload"
        )
    if upload.size is not None and upload.size > settings.IMPORT_UPLOAD_MAX_BYTES:
        limit = settings.IMPORT_UPLOAD_MAX_BYTES // (1024 * 1024)
        raise DomainError(f"The file is larger than {limit} MB; split it and import the parts.", field="upload")
    if not upload.size:
        raise DomainError("The file is empty.", field="upload")
    with transaction.atomic():
        job = ImportJob(
            kind=ImportJob.Kind.FILE,
            created_by=user,
            parameters={
                "filename": filename,
                "repo": repository.full_name if repository else "",
                "skip_invalid": bool(skip_invalid),
            },
        )
        job.upload.save(filename, upload, save=False)
        job.save()
        job_enqueue_on_commit(job=job)
    return job_queued_or_raise(job=job)


def file_import_run(*, job: ImportJob) -> ImportJob:
    """Claim a pending (or stalled) file import job and run it to the end. Idempotent: a finished job
    is left alone; JobBusyError while another live process runs it."""
    return job_run(job=job, run=_file_import_claimed, started_at=timezone.now(), progress_done=0)


def _file_import_claimed(job: ImportJob) -> ImportJob:
    params = job.parameters or {}
    try:
        with job.upload.open("rb") as handle:
            outcome = file_import_execute(
                data=handle,
                name=params.get("filename") or PurePath(job.upload.name).name,
                repository=repository_ref_from_text(params.get("repo")),
                skip_invalid=bool(params.get("skip_invalid")),
                job=job,
            )
    except Exception as exc:  # the job page must show a failure, not stay "running" forever
        logger.exception("file import job %s failed", job.pk)
        return _finish(job, status=ImportJob.Status.FAILED, error=_failure_message(exc)[:2000])
    error = ""
    if not outcome.written:
        error = (
            f"{outcome.parsed.invalid} of {outcome.parsed.total} records are invalid, so nothing was imported. "
            "Fix them and upload the file again, or tick 'skip invalid records' to import the valid ones."
        )
    return _file_import_finish(job, outcome, error=error)


def _file_import_finish(job: ImportJob, outcome: FileImportOutcome, *, error: str) -> ImportJob:
    problems = [{"location": p.location, "field": p.field, "message": p.message} for p in outcome.parsed.problems]
    return _finish(
        job,
        status=ImportJob.Status.DONE if outcome.written else ImportJob.Status.FAILED,
        error=error,
        counts=outcome.counts(),
        problems=problems[:STORED_PROBLEMS],
        progress=outcome.parsed.total,
    )


def _failure_message(exc: BaseException) -> str:
    """What a person sees when an import stopped: never a driver's message (it may quote SQL)."""
    if isinstance(exc, DomainError):
        return exc.message
    if isinstance(exc, KeyboardInterrupt):
        return "The import was interrupted before it finished; run it again to complete it."
    if isinstance(exc, DatabaseError):
        return (
            f"The import stopped because the database failed ({type(exc).__name__}); nothing of it was kept. "
            "Run it again; if it fails again, report it with the file."
        )
    return f"The import stopped with an error: {exc}"


def _finish(
    job: ImportJob, *, status: str, error: str = "", counts=None, problems=None, progress: int | None = None
) -> ImportJob:
    job.refresh_from_db()
    job.status = status
    job.error = error
    job.finished_at = timezone.now()
    if counts is not None:
        job.counts = counts
    if problems is not None:
        job.problems = problems
    fields = ["status", "error", "finished_at", "counts", "problems", "updated_at"]
    if progress is not None:
        job.progress_done = job.progress_total = progress
        fields += ["progress_done", "progress_total"]
    job.save(update_fields=fields)
    return job


# --------------------------------------------------------------------------- Imports run in this process
# The command-line importers run here and now, not through a queue, but each records its run as an
# ImportJob like the browser's, so the Imports page lists it with its outcome.

JOB_ERROR_PROBLEMS = 10  # problems spelled out in a failed job's error; all (up to STORED_PROBLEMS) are kept


def import_user_get(*, username: str | None):
    """The user named by a command's --user option; None when none is named."""
    if not username:
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFoundError(f"There is no user '{username}'; name an existing user or leave the option out.")
    return user


def import_job_start(*, kind: str, user=None, parameters: dict) -> ImportJob:
    """A running ImportJob for an import done in this process (it is not queued)."""
    now = timezone.now()
    return ImportJob.objects.create(
        kind=kind,
        created_by=user,
        parameters=parameters,
        status=ImportJob.Status.RUNNING,
        started_at=now,
    )


def _stopped(job: ImportJob, exc: BaseException, *, problems: Sequence[str] = ()) -> None:
    """Mark a job failed by an exception, which the caller then raises again (and so shows it)."""
    message = _failure_message(exc)
    try:
        _finish(
            job,
            status=ImportJob.Status.FAILED,
            error=message[:2000],
            problems=[{"location": "", "field": "", "message": line} for line in problems[:STORED_PROBLEMS]],
        )
    except DatabaseError:  # the database itself failed: the caller's exception says more than this one
        logger.warning("could not mark import job %s failed", job.pk, exc_info=True)


def file_import_invalid_message(parsed: ParseResult) -> str:
    """Why a command-line file import wrote nothing (the browser's job says it in its own words)."""
    return (
        f"{parsed.invalid} of {parsed.total} records are invalid; nothing was imported. "
        "Fix them, or use --skip-invalid to import the valid ones."
    )


def file_import_job_execute(
    *,
    data: bytes | IO[bytes],
    name: str,
    user=None,
    repository: RepositoryRef | None = None,
    skip_invalid: bool = False,
    batch_size: int = 1000,
    progress: Callable[[int], None] | None = None,
) -> tuple[ImportJob, FileImportOutcome]:
    """file_import_execute, recorded as a file ImportJob: running, then done or failed with the problems.

    An exception marks the job failed and is raised again; invalid records (without skip_invalid) leave
    it failed with the first problems, naming file and line, in its error. The job row is not written
    while the import's transaction is open (that would hold its lock until the end).
    """
    job = import_job_start(
        kind=ImportJob.Kind.FILE,
        user=user,
        parameters={
            "filename": name,
            "repo": repository.full_name if repository else "",
            "skip_invalid": bool(skip_invalid),
        },
    )
    try:
        outcome = file_import_execute(
            data=data,
            name=name,
            repository=repository,
            skip_invalid=skip_invalid,
            batch_size=batch_size,
            progress=progress,
            job=job,
        )
    except BaseException as exc:  # Ctrl-C included: the Imports page must not show it running forever
        _stopped(job, exc)
        raise
    error = ""
    if not outcome.written:
        lines = problems_message(outcome.parsed.problems, limit=JOB_ERROR_PROBLEMS, total=outcome.parsed.problem_count)
        error = "\n".join([file_import_invalid_message(outcome.parsed), *lines])
    return _file_import_finish(job, outcome, error=error), outcome


def sheets_import_job_execute(
    *,
    request: SheetsImportRequest,
    user=None,
    actor=None,
    owner=None,
    progress: Callable[[int], None] | None = None,
) -> tuple[ImportJob, SheetsImportResult]:
    """sheets_import, recorded as a spreadsheets ImportJob. ``user`` ran it (the job's "who"); ``actor`` and
    ``owner`` are passed on to sheets_import (actor None: the system, an operator at the command line). A
    failure marks the job failed with the reason, naming file, sheet and line, and is raised again."""
    decisions = request.decisions()
    job = import_job_start(
        kind=ImportJob.Kind.SHEETS,
        user=user,
        parameters={"filename": ", ".join(decisions["files"]), "study": request.study_name, **decisions},
    )

    try:
        # One transaction: progress written to the job inside it would only be seen at the end.
        result = sheets_import(request=request, actor=actor, owner=owner, progress=progress)
    except BaseException as exc:
        _stopped(job, exc, problems=exc.problems if isinstance(exc, SheetsImportError) else [])
        raise
    if result.unchanged:
        size = result.round.size or 0
        counts = {"records": size, "created": 0, "updated": 0, "unchanged": size}
    else:
        counts = {
            "records": result.study_issues,
            "created": result.issues_created,
            "updated": 0,
            "unchanged": result.issues_found,
            "annotations": result.annotations,
            "values": result.values,
            "resolutions": result.resolutions,
            "categories_added": result.categories_added,
        }
    counts["skipped"] = len(result.warnings)
    parameters = {**job.parameters, "study_id": result.study.pk, "round": result.round.number}
    ImportJob.objects.filter(pk=job.pk).update(
        parameters=parameters,
        progress_done=counts["records"],
        progress_total=counts["records"],
        updated_at=timezone.now(),
    )
    job = _finish(
        job,
        status=ImportJob.Status.DONE,
        counts=counts,
        problems=[{"location": "", "field": "", "message": w} for w in result.warnings[:STORED_PROBLEMS]],
    )
    return job, result
