"""File imports: validate a file, then upsert its issues; as an ImportJob when started from the browser.

Default rule, for the command and the browser alike: the whole file is validated first and nothing
is written if any record is invalid. With skip_invalid the valid records are imported and the
others listed.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.importers.files import ParseResult, parse_issue_file, parse_repository_ref
from annotator.importers.records import RecordProblem, RepositoryRef
from annotator.models import ImportJob
from core.errors import DomainError, PermissionDeniedError
from core.permissions import can_manage_imports

from .issues import UpsertResult, issues_upsert

logger = logging.getLogger(__name__)

ALLOWED_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".txt")
# Problems kept on a job: enough to fix a file; the count says how many there were in all.
STORED_PROBLEMS = 500


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
    data: bytes,
    name: str,
    repository: RepositoryRef | None = None,
    skip_invalid: bool = False,
    batch_size: int = 1000,
    on_parsed: Callable[[ParseResult], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> FileImportOutcome:
    """Parse and validate the whole file, then upsert its records (all or, with skip_invalid, the valid ones)."""
    parsed = parse_issue_file(data, name=name, repository=repository)
    if on_parsed is not None:
        on_parsed(parsed)
    if parsed.problems and not skip_invalid:
        return FileImportOutcome(parsed=parsed, result=None)
    result = issues_upsert(records=parsed.records, batch_size=batch_size, progress=progress)
    return FileImportOutcome(parsed=parsed, result=result)


def problems_message(problems: list[RecordProblem], *, limit: int = 50) -> list[str]:
    """Problems as lines for a person, the first `limit` of them and then how many more."""
    lines = [str(p) for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"... and {len(problems) - limit} more")
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
        transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    from annotator.tasks.file_imports import file_import_job_run  # the task module imports this one

    file_import_job_run.delay(job_id)


def file_import_run(*, job: ImportJob) -> ImportJob:
    """Run a pending (or interrupted) file import job to the end. Idempotent: a finished job is left alone."""
    claimed = ImportJob.objects.filter(
        pk=job.pk, status__in=[ImportJob.Status.PENDING, ImportJob.Status.RUNNING]
    ).update(status=ImportJob.Status.RUNNING, started_at=timezone.now(), progress_done=0, updated_at=timezone.now())
    job.refresh_from_db()
    if not claimed:
        return job
    params = job.parameters or {}

    def on_parsed(parsed: ParseResult) -> None:
        ImportJob.objects.filter(pk=job.pk).update(progress_total=len(parsed.records), updated_at=timezone.now())

    def progress(done: int) -> None:
        ImportJob.objects.filter(pk=job.pk).update(progress_done=F("progress_done") + done, updated_at=timezone.now())

    try:
        with job.upload.open("rb") as handle:
            data = handle.read()
        outcome = file_import_execute(
            data=data,
            name=params.get("filename") or PurePath(job.upload.name).name,
            repository=repository_ref_from_text(params.get("repo")),
            skip_invalid=bool(params.get("skip_invalid")),
            on_parsed=on_parsed,
            progress=progress,
        )
    except Exception as exc:  # the job page must show a failure, not stay "running" forever
        logger.exception("file import job %s failed", job.pk)
        message = exc.message if isinstance(exc, DomainError) else f"The import stopped with an error: {exc}"
        return _finish(job, status=ImportJob.Status.FAILED, error=message[:2000])
    problems = [{"location": p.location, "field": p.field, "message": p.message} for p in outcome.parsed.problems]
    error = ""
    if not outcome.written:
        error = (
            f"{outcome.parsed.invalid} of {outcome.parsed.total} records are invalid, so nothing was imported. "
            "Fix them and upload the file again, or tick 'skip invalid records' to import the valid ones."
        )
    return _finish(
        job,
        status=ImportJob.Status.DONE if outcome.written else ImportJob.Status.FAILED,
        error=error,
        counts=outcome.counts(),
        problems=problems[:STORED_PROBLEMS],
    )


def _finish(job: ImportJob, *, status: str, error: str = "", counts=None, problems=None) -> ImportJob:
    job.refresh_from_db()
    job.status = status
    job.error = error
    job.finished_at = timezone.now()
    if counts is not None:
        job.counts = counts
    if problems is not None:
        job.problems = problems
    job.save(update_fields=["status", "error", "finished_at", "counts", "problems", "updated_at"])
    return job
