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

from ..jobs import job_enqueue_on_commit, job_queued_or_raise, job_run
from .package import replication_package_write

logger = logging.getLogger(__name__)


def replication_package_request(*, study: Study, actor) -> ExportJob:
    """Queue a build (or return the one already queued or running); only owners and staff may ask.

    Raises JobNotQueuedError (503) when the queue cannot be reached: the build is saved "not queued"
    and sent when the queue is back.
    """
    return job_queued_or_raise(job=_replication_package_queue(study=study, actor=actor))


@transaction.atomic
def _replication_package_queue(*, study: Study, actor) -> ExportJob:
    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can build its replication package.")
    Study.objects.select_for_update().get(pk=study.pk)  # one request at a time per study
    unfinished = [ExportJob.Status.PENDING, ExportJob.Status.RUNNING, ExportJob.Status.NOT_QUEUED]
    active = ExportJob.objects.filter(study=study, kind=ExportJob.Kind.REPLICATION, status__in=unfinished).first()
    if active is not None:
        if active.status == ExportJob.Status.NOT_QUEUED:
            active.status = ExportJob.Status.PENDING  # asked again: try the queue again
            active.save(update_fields=["status", "updated_at"])
            job_enqueue_on_commit(job=active)
        return active
    job = ExportJob.objects.create(study=study, kind=ExportJob.Kind.REPLICATION, created_by=actor)
    job_enqueue_on_commit(job=job)
    return job


def replication_package_build(*, job: ExportJob) -> ExportJob:
    """Claim the build of ``job`` (pending, not queued, or stalled) and store the package under
    MEDIA_ROOT; a finished job is left alone (idempotent); JobBusyError while a live worker builds it."""
    return job_run(job=job, run=_replication_package_claimed, started_at=timezone.now(), error="")


def _replication_package_claimed(job: ExportJob) -> ExportJob:
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
        ExportJob.objects.filter(pk=job.pk, status=ExportJob.Status.RUNNING).update(
            status=ExportJob.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        job.refresh_from_db()
        return job
    finished = ExportJob.objects.filter(pk=job.pk, status=ExportJob.Status.RUNNING).update(
        file=job.file.name,
        size_bytes=job.size_bytes,
        sha256=job.sha256,
        counts=counts,
        status=ExportJob.Status.DONE,
        step="",
        progress_done=F("progress_total"),
        finished_at=timezone.now(),
        updated_at=timezone.now(),
    )
    if not finished:  # cancelled (or taken over) while it was built: its file is nobody's
        job.file.delete(save=False)
    job.refresh_from_db()
    return job
