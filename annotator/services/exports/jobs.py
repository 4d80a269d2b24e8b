"""Building a replication package in the background: the owner asks, a Celery task builds, the page polls."""

import logging
import tempfile
from pathlib import Path

from django.core.files import File
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.exports import sha256_file
from annotator.models import ExportJob, Study
from annotator.permissions import can_manage_study
from core.errors import PermissionDeniedError

from .package import replication_package_write

logger = logging.getLogger(__name__)


@transaction.atomic
def replication_package_request(*, study: Study, actor) -> ExportJob:
    """Queue a build (or return the one already queued or running); only owners and staff may ask."""
    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can build its replication package.")
    Study.objects.select_for_update().get(pk=study.pk)  # one request at a time per study
    active = ExportJob.objects.filter(
        study=study, kind=ExportJob.Kind.REPLICATION, status__in=[ExportJob.Status.PENDING, ExportJob.Status.RUNNING]
    ).first()
    if active is not None:
        return active
    job = ExportJob.objects.create(study=study, kind=ExportJob.Kind.REPLICATION, created_by=actor)
    transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    from annotator.tasks.exports import replication_package_run  # the task module imports this one

    replication_package_run.delay(job_id)


def replication_package_build(*, job: ExportJob) -> ExportJob:
    """Build the package of ``job`` and store it under MEDIA_ROOT; a finished job is left alone (idempotent)."""
    claimed = ExportJob.objects.filter(pk=job.pk, status=ExportJob.Status.PENDING).update(
        status=ExportJob.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        job.refresh_from_db()
        return job
    study = Study.objects.select_related("taxonomy_version__taxonomy").get(pk=job.study_id)

    def progress(step: str, done: int, total: int) -> None:
        ExportJob.objects.filter(pk=job.pk).update(step=step[:60], progress_done=done, progress_total=total)

    try:
        with tempfile.TemporaryDirectory(prefix="export-") as folder:
            target = Path(folder) / f"{study.slug}-replication.zip"
            counts = replication_package_write(study=study, target=target, progress=progress)
            digest = sha256_file(target)
            job.refresh_from_db()
            with open(target, "rb") as handle:
                job.file.save(f"{study.slug}-replication-{job.pk}.zip", File(handle), save=False)
            job.size_bytes = target.stat().st_size
            job.sha256 = digest
    except Exception as exc:  # any failure is recorded on the job for the owner to see
        logger.exception("Replication package %s failed", job.pk)
        ExportJob.objects.filter(pk=job.pk).update(
            status=ExportJob.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        job.refresh_from_db()
        return job
    job.counts = counts
    job.status = ExportJob.Status.DONE
    job.step = ""
    job.progress_done = F("progress_total")
    job.finished_at = timezone.now()
    job.save()
    job.refresh_from_db()
    return job
