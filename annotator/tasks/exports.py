"""Background build of a study's replication package."""

from celery import shared_task

from annotator.models import ExportJob
from annotator.services.exports import replication_package_build


@shared_task(name="annotator.replication_package_run", ignore_result=True)
def replication_package_run(job_id: int) -> None:
    """Takes an id and re-fetches: the job may have been built (or deleted) since it was queued."""
    job = ExportJob.objects.filter(pk=job_id).first()
    if job is not None:
        replication_package_build(job=job)
