"""Background run of a file import started from the browser."""

from celery import shared_task

from annotator.models import ImportJob
from annotator.services.imports import file_import_run


@shared_task(name="annotator.file_import_job_run", ignore_result=True)
def file_import_job_run(job_id: int) -> None:
    """Takes an id and re-fetches: the job may have been run (or deleted) since it was queued."""
    job = ImportJob.objects.filter(pk=job_id, kind=ImportJob.Kind.FILE).first()
    if job is not None:
        file_import_run(job=job)
