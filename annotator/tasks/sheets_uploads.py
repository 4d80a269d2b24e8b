"""The import wizard's spreadsheets: read in a worker once uploaded (a job); periodic clean-up (Celery beat)."""

from celery import shared_task

from annotator.jobs import SHEETS_READ_TASK
from annotator.models import ImportJob
from annotator.services.sheets_import.uploads import sheets_upload_read_run, sheets_uploads_clean

from .jobs import JOB_TASK_OPTIONS, retry_while_busy


@shared_task(bind=True, name=SHEETS_READ_TASK, **JOB_TASK_OPTIONS)
def sheets_upload_read_job_run(self, job_id: int) -> None:
    """Takes an id and re-fetches: the job may have been read (or cancelled) since it was queued."""
    job = ImportJob.objects.filter(pk=job_id, kind=ImportJob.Kind.SHEET_READ).first()
    if job is not None:
        with retry_while_busy(self):
            sheets_upload_read_run(job=job)


@shared_task(name="annotator.sheets_uploads_clean", ignore_result=True)
def sheets_uploads_clean_run() -> None:
    sheets_uploads_clean()
