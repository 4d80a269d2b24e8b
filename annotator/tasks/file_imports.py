"""Background run of a file import started from the browser."""

from celery import shared_task

from annotator.jobs import FILE_IMPORT_TASK
from annotator.models import ImportJob
from annotator.services.imports import file_import_run

from .jobs import JOB_TASK_OPTIONS, retry_while_busy


@shared_task(bind=True, name=FILE_IMPORT_TASK, **JOB_TASK_OPTIONS)
def file_import_job_run(self, job_id: int) -> None:
    """Takes an id and re-fetches: the job may have been run (or deleted) since it was queued."""
    job = ImportJob.objects.filter(pk=job_id, kind=ImportJob.Kind.FILE).first()
    if job is not None:
        with retry_while_busy(self):
            file_import_run(job=job)
