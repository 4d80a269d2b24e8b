"""Background build of a study's replication package."""

from celery import shared_task

from annotator.jobs import REPLICATION_PACKAGE_TASK
from annotator.models import ExportJob
from annotator.services.exports import replication_package_build

from .jobs import JOB_TASK_OPTIONS, retry_while_busy


@shared_task(bind=True, name=REPLICATION_PACKAGE_TASK, **JOB_TASK_OPTIONS)
def replication_package_run(self, job_id: int) -> None:
    """Takes an id and re-fetches: the job may have been built (or deleted) since it was queued."""
    job = ExportJob.objects.filter(pk=job_id).first()
    if job is not None:
        with retry_while_busy(self):
            replication_package_build(job=job)
