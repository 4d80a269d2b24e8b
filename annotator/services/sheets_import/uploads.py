"""The spreadsheets a person uploads to the wizard: stored under names the server chooses, read once by a
job (a "Spreadsheet reading" ImportJob run by a worker, never in a web request) into ``sheets.json`` beside
them, deleted when the wizard completes, and deleted by a periodic clean-up when a wizard is abandoned.

The reading is a job like the imports: claimed once, with a heartbeat, re-queued by the reaper if its worker
dies, "not queued" while the broker is down (sent again when it is back), retried or cancelled by whoever
uploaded the files (annotator.services.jobs)."""

import contextlib
import json
import logging
import os
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from annotator.importers.sheets import Sheet, SheetReadError, SheetRow, read_sheets
from annotator.models import ImportJob
from annotator.services.jobs import job_enqueue_on_commit, job_queued_or_raise, job_run
from core.errors import DomainError, PermissionDeniedError
from core.permissions import can_manage_imports

from .request import SheetsImportError, sheet_limits

UPLOAD_FOLDER = "imports/sheets"
READ_RESULT = "sheets.json"  # what the reading task found: the sheets, or why the files cannot be read
SUFFIXES = (".xlsx", ".csv")
DISPLAY_NAME_MAX = 200
logger = logging.getLogger(__name__)


def sheets_uploads_store(*, uploads: Sequence[UploadedFile]) -> list[tuple[str, str]]:
    """Store the files; returns (stored name, name as uploaded) per file. The stored name is chosen here
    (a random folder, the file's position and its suffix): nothing the client sent becomes part of a path."""
    folder = f"{UPLOAD_FOLDER}/{uuid.uuid4().hex}"
    stored = []
    for position, upload in enumerate(uploads, start=1):
        suffix = next((s for s in SUFFIXES if upload.name.lower().endswith(s)), None)
        if suffix is None:
            raise SheetsImportError(f"{upload.name}: only .xlsx and .csv files can be imported.")
        name = default_storage.save(f"{folder}/{position}{suffix}", upload)
        stored.append((name, upload.name[:DISPLAY_NAME_MAX]))
    return stored


def sheets_upload_path(stored: str) -> str:
    """The local path of a stored upload; only names this module chose are accepted."""
    parts = PurePosixPath(stored).parts
    if len(parts) != 4 or "/".join(parts[:2]) != UPLOAD_FOLDER or not parts[3].endswith(SUFFIXES):
        raise SheetsImportError("The uploaded files are gone; upload them again.")
    return default_storage.path(stored)


def _result_name(stored: Sequence[str]) -> str:
    sheets_upload_path(stored[0])  # refuses any name this module did not choose
    return f"{stored[0].rsplit('/', 1)[0]}/{READ_RESULT}"


def sheets_upload_read_start(*, user, files: Sequence[tuple[str, str]]) -> ImportJob:
    """Queue the reading of stored uploads as a job of ``user``'s. Raises JobNotQueuedError (the job saved
    "not queued", sent when the broker is back) when the queue cannot be reached: nothing is read here."""
    if not can_manage_imports(user):
        raise PermissionDeniedError("Only study owners can import studies from spreadsheets.")
    for stored, _ in files:
        sheets_upload_path(stored)  # refuses any name this module did not choose
    with transaction.atomic():
        job = ImportJob.objects.create(
            kind=ImportJob.Kind.SHEET_READ,
            created_by=user,
            parameters={"files": [[stored, name] for stored, name in files], "filename": _names(files)},
        )
        job_enqueue_on_commit(job=job)
    return job_queued_or_raise(job=job)


def _names(files: Sequence[tuple[str, str]]) -> str:
    return ", ".join(name for _, name in files)[:DISPLAY_NAME_MAX]


def sheets_upload_read_run(*, job: ImportJob) -> ImportJob:
    """Claim a reading job and read its files (with a heartbeat); a job not claimable is returned as it is."""
    return job_run(job=job, run=_read_claimed, started_at=timezone.now(), progress_done=0)


def _read_claimed(job: ImportJob) -> ImportJob:
    files = [(stored, name) for stored, name in (job.parameters or {}).get("files", [])]
    status, error = ImportJob.Status.DONE, ""
    try:
        error = sheets_upload_read(files=files)
    except Exception as exc:  # the wizard must show a failure, not wait for ever
        logger.exception("reading the spreadsheets of job %s failed", job.pk)
        error = exc.message if isinstance(exc, DomainError) else f"The files could not be read: {exc}"
        status = ImportJob.Status.FAILED
    if error:
        status = ImportJob.Status.FAILED
    now = timezone.now()
    ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.RUNNING).update(
        status=status,
        error=error[:2000],
        finished_at=now,
        updated_at=now,
        counts={"files": len(files)},
        progress_done=len(files),
        progress_total=len(files),
    )
    job.refresh_from_db()
    return job


def sheets_upload_read(*, files: Sequence[tuple[str, str]]) -> str:
    """Read one upload's files within the limits and keep the sheets (or the reason they cannot be read)
    beside them, so the wizard's steps never parse a spreadsheet in a web request. Idempotent. Returns the
    reason the files cannot be read ("" when they were read)."""
    paths = [Path(sheets_upload_path(stored)) for stored, _ in files]
    names = {str(path): name for path, (_, name) in zip(paths, files, strict=True)}
    try:
        sheets = read_sheets(paths, limits=sheet_limits(), display_names=names)
        content = {"sheets": [_sheet_record(key, sheet) for key, sheet in sheets.items()]}
    except SheetReadError as exc:
        content = {"error": str(exc)}
    target = Path(default_storage.path(_result_name([stored for stored, _ in files])))
    partial = target.with_suffix(".partial")
    partial.write_text(json.dumps(content), encoding="utf-8")
    os.replace(partial, target)  # whole or absent: a step never sees half a result
    return content.get("error", "")


def sheets_upload_sheets(*, stored: Sequence[str]) -> dict[str, Sheet] | None:
    """The sheets the reading task found; None while it has not finished. Raises SheetsImportError with the
    reason when the files cannot be read."""
    name = _result_name(stored)
    if not default_storage.exists(name):
        return None
    with default_storage.open(name, "rb") as handle:
        content = json.load(handle)
    if "error" in content:
        raise SheetsImportError(content["error"])
    return {record["key"]: _sheet_of(record) for record in content["sheets"]}


def _sheet_record(key: str, sheet: Sheet) -> dict:
    return {
        "key": key,
        "name": sheet.name,
        "source": sheet.source,
        "headers": sheet.headers,
        "columns": list(sheet.columns.items()),
        "rows": [[row.line, row.values] for row in sheet.rows],
    }


def _sheet_of(record: dict) -> Sheet:
    return Sheet(
        name=record["name"],
        source=record["source"],
        headers=record["headers"],
        columns=dict(record["columns"]),
        rows=[SheetRow(line=line, values=values) for line, values in record["rows"]],
    )


def sheets_uploads_delete(*, stored: Iterable[str]) -> None:
    """Delete the files of one wizard (when it completes), what was read from them, and their folder."""
    folders = set()
    for name in stored:
        sheets_upload_path(name)  # refuses any name this module did not choose
        default_storage.delete(name)
        folders.add(name.rsplit("/", 1)[0])
    for folder in folders:
        default_storage.delete(f"{folder}/{READ_RESULT}")
        _remove_empty(folder)


def sheets_uploads_clean(*, now: datetime | None = None, older_than: timedelta | None = None) -> int:
    """Delete the uploads of wizards left unfinished for longer than the retention; returns how many folders."""
    now = now or timezone.now()
    cutoff = now - (older_than or timedelta(hours=settings.SHEETS_UPLOAD_RETENTION_HOURS))
    if not default_storage.exists(UPLOAD_FOLDER):
        return 0
    removed = 0
    folders, _ = default_storage.listdir(UPLOAD_FOLDER)
    for folder in folders:
        path = f"{UPLOAD_FOLDER}/{folder}"
        _, files = default_storage.listdir(path)
        names = [f"{path}/{name}" for name in files]
        if any(default_storage.get_modified_time(name) > cutoff for name in names):
            continue  # a wizard still in use
        for name in names:
            default_storage.delete(name)
        _remove_empty(path)
        removed += 1
    if removed:
        logger.info("deleted the uploads of %d abandoned spreadsheet imports", removed)
    return removed


def _remove_empty(folder: str) -> None:
    # A storage without folders has nothing to remove; a folder someone wrote into meanwhile stays.
    with contextlib.suppress(NotImplementedError, OSError):
        os.rmdir(default_storage.path(folder))
