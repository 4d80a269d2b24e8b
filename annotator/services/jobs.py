"""The life of a queued job (a file or GitHub import, the spreadsheet wizard's reading of its files, a
replication package build), whatever it does.

- Sending: after the commit, by task name; a broker that cannot be reached leaves the job "not
  queued" (never "pending" forever) and the caller answers with a clear message.
- Claiming: one atomic status change from a claimable status to "running". A redelivered task
  (its worker was killed) takes over a running job only once the job's heartbeat went stale, so
  two processes never run one job.
- Reaping: running jobs whose heartbeat stopped are re-queued, or failed after JOB_MAX_ATTEMPTS
  claims; "not queued" jobs, and pending jobs or rate-limit waits whose message was lost, are sent again.
- Retry and cancel, from the pages, for failed, stale and not-queued jobs.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from annotator.jobs import (
    FILE_IMPORT_TASK,
    GITHUB_IMPORT_TASK,
    REPLICATION_PACKAGE_TASK,
    SHEETS_READ_TASK,
    JobBusyError,
    JobNotQueuedError,
    heartbeat,
    stale_after,
    task_send,
)
from annotator.models import ExportJob, ImportJob
from annotator.permissions import can_manage_study
from annotator.selectors.imports import import_job_may_act
from core.errors import ConflictError, PermissionDeniedError

logger = logging.getLogger(__name__)

Job = TypeVar("Job", ImportJob, ExportJob)
QUEUED_IMPORT_KINDS = (ImportJob.Kind.FILE, ImportJob.Kind.GITHUB, ImportJob.Kind.SHEET_READ)


def job_label(job: ImportJob | ExportJob) -> str:
    if isinstance(job, ExportJob):
        return f"replication package #{job.pk}"
    if job.kind == ImportJob.Kind.SHEET_READ:
        return f"spreadsheet reading #{job.pk}"
    return f"{job.get_kind_display()} import #{job.pk}"


def job_task_name(job: ImportJob | ExportJob) -> str | None:
    """The task that runs the job; None for jobs run in-process by a command (nothing to send)."""
    if isinstance(job, ExportJob):
        return REPLICATION_PACKAGE_TASK
    if job.kind == ImportJob.Kind.GITHUB:
        return GITHUB_IMPORT_TASK
    if job.kind == ImportJob.Kind.SHEET_READ:
        return SHEETS_READ_TASK
    if job.kind == ImportJob.Kind.FILE and job.upload:
        return FILE_IMPORT_TASK
    return None


# --------------------------------------------------------------------------- sending


def job_enqueue(*, job: Job, eta: datetime | None = None) -> bool:
    """Send the job's task now (call it after the commit). If the broker cannot be reached, a
    pending job becomes "not queued" and False is returned; the reaper or "Retry" sends it later."""
    if task_send(job_task_name(job), args=[job.pk], eta=eta):
        return True
    model = type(job)
    if model.objects.filter(pk=job.pk, status=model.Status.PENDING).update(
        status=model.Status.NOT_QUEUED, updated_at=timezone.now()
    ):
        job.status = model.Status.NOT_QUEUED
    return False


def job_enqueue_on_commit(*, job: Job) -> None:
    transaction.on_commit(lambda: job_enqueue(job=job))


def job_queued_or_raise(*, job: Job) -> Job:
    """After the transaction that queued ``job``: a job the broker did not take is saved "not queued",
    and the caller learns it with a message a person can act on (503 in the API)."""
    if job.status == type(job).Status.NOT_QUEUED:
        raise JobNotQueuedError(
            f"The job queue cannot be reached right now, so {job_label(job)} was saved as \u201cnot queued\u201d. "
            "It is sent automatically when the queue is back, or press Retry on its page.",
            job_id=job.pk,
        )
    return job


# --------------------------------------------------------------------------- claiming and running


def _claimable(model, statuses) -> Q:
    stale = timezone.now() - stale_after()
    return Q(status__in=statuses) | Q(status=model.Status.RUNNING, heartbeat_at__lt=stale)


def job_claim(*, job: Job, statuses: tuple[str, ...] | None = None, **fields) -> bool:
    """Take the job for this process: one atomic change to "running" (with a fresh heartbeat).

    True when claimed; False when there is nothing to run (done, failed, cancelled or gone, or it
    was claimed JOB_MAX_ATTEMPTS times already: then it is failed). Raises JobBusyError when a live
    process holds it. ``statuses``: what may be claimed besides a stale running job.
    """
    model = type(job)
    statuses = statuses or (model.Status.PENDING, model.Status.NOT_QUEUED)
    now = timezone.now()
    claimed = (
        model.objects.filter(pk=job.pk, attempts__lt=settings.JOB_MAX_ATTEMPTS)
        .filter(_claimable(model, statuses))
        .update(
            status=model.Status.RUNNING,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            finished_at=None,
            updated_at=now,
            **fields,
        )
    )
    job.refresh_from_db()
    if claimed:
        return True
    if job.status == model.Status.RUNNING and not job.is_stale:
        raise JobBusyError(f"{job_label(job).capitalize()} is running in another process.")
    if model.objects.filter(pk=job.pk).filter(_claimable(model, statuses)).exists():
        _fail_exhausted(job)
    return False


def _fail_exhausted(job: Job) -> None:
    model = type(job)
    message = (
        f"The worker running this job stopped {job.attempts} times before it finished (killed, out of "
        "memory or restarted); nothing more is tried. Look at the worker's log, then press Retry."
    )
    model.objects.filter(pk=job.pk, status=job.status).update(
        status=model.Status.FAILED, error=message, finished_at=timezone.now(), updated_at=timezone.now()
    )
    job.refresh_from_db()


def job_run(*, job: Job, run: Callable[[Job], Job], statuses: tuple[str, ...] | None = None, **fields) -> Job:
    """Claim the job, then run it with a heartbeat; a job that is not claimable is returned as it is."""
    if not job_claim(job=job, statuses=statuses, **fields):
        return job
    with heartbeat(type(job), pk=job.pk):
        return run(job)


# --------------------------------------------------------------------------- reaping


@dataclass(slots=True)
class ReapOutcome:
    requeued: int = 0
    failed: int = 0
    sent: int = 0
    not_sent: int = 0

    def summary(self) -> str:
        return (
            f"stale jobs re-queued {self.requeued}, failed {self.failed}; "
            f"not-queued or lost jobs sent {self.sent}, still not sent {self.not_sent}"
        )


def _queued_jobs(model):
    if model is ImportJob:
        return ImportJob.objects.filter(kind__in=QUEUED_IMPORT_KINDS)
    return model.objects.all()


def jobs_reap() -> ReapOutcome:
    """Re-queue (or fail) running jobs whose heartbeat stopped; send again what the queue never took."""
    outcome = ReapOutcome()
    now = timezone.now()
    for model in (ImportJob, ExportJob):
        jobs = _queued_jobs(model)
        for pk in jobs.filter(status=model.Status.RUNNING, heartbeat_at__lt=now - stale_after()).values_list(
            "pk", flat=True
        ):
            job = _stale_requeue(model, pk)
            if job is None:
                continue
            if job.status == model.Status.FAILED:
                outcome.failed += 1
            else:
                outcome.requeued += 1
                outcome.not_sent += not _reap_send(job)
        # Pending for long: its message was taken by a worker killed before the job was claimed (it
        # comes back only after the broker's visibility timeout). A second message is harmless: the
        # claim lets one of them run the job.
        unclaimed = timedelta(seconds=float(settings.JOB_PENDING_RESEND_SECONDS))
        lost = Q(status=model.Status.NOT_QUEUED) | Q(status=model.Status.PENDING, updated_at__lt=now - unclaimed)
        if model is ImportJob:  # a rate-limit wait whose delayed message died with its worker
            lost |= Q(status=ImportJob.Status.WAITING, resume_at__lt=now - stale_after())
        for job in jobs.filter(lost).order_by("pk"):
            if job_task_name(job) is None:
                continue
            # Marked as sent now, so the next reaper run does not send it again straight away.
            if job.status == ImportJob.Status.WAITING:
                model.objects.filter(pk=job.pk, status=job.status).update(resume_at=timezone.now())
            else:
                model.objects.filter(pk=job.pk, status=job.status).update(
                    status=model.Status.PENDING, updated_at=timezone.now()
                )
                job.status = model.Status.PENDING
            if _reap_send(job):
                outcome.sent += 1
            else:
                outcome.not_sent += 1
    return outcome


def _reap_send(job) -> bool:
    try:
        return job_enqueue(job=job)
    except Exception:  # tasks run in-process (no broker): the job recorded its own failure; reap the rest
        logger.exception("%s failed when the reaper ran it", job_label(job))
        return True


@transaction.atomic
def _stale_requeue(model, pk: int):
    """Under the row lock: a stale running job becomes pending again, or failed once it used up its attempts."""
    job = model.objects.select_for_update().filter(pk=pk).first()
    if job is None or not job.is_stale:
        return None
    if job.attempts >= settings.JOB_MAX_ATTEMPTS:
        _fail_exhausted(job)
        return job
    job.status = model.Status.PENDING
    job.save(update_fields=["status", "updated_at"])
    logger.warning("%s lost its worker (no heartbeat since %s); queued again", job_label(job), job.heartbeat_at)
    return job


# --------------------------------------------------------------------------- retry and cancel


def _check_may_manage(*, job: Job, actor) -> None:
    if isinstance(job, ExportJob):
        if not can_manage_study(actor, job.study):
            raise PermissionDeniedError("Only the study's owner can retry or cancel its package builds.")
    elif not import_job_may_act(user=actor, job=job):
        raise PermissionDeniedError(
            f"Only whoever started {job_label(job)} (or staff) can retry or cancel it; start your own import instead."
        )


def job_retry(*, job: Job, actor) -> Job:
    """Send a failed, stale or not-queued job again (a GitHub import resumes from its cursor).

    Raises JobNotQueuedError (503) when the queue still cannot be reached; the job stays "not queued".
    """
    _check_may_manage(job=job, actor=actor)
    model = type(job)
    with transaction.atomic():
        locked = model.objects.select_for_update().get(pk=job.pk)
        if not locked.is_retryable:
            raise ConflictError(
                f"{job_label(locked).capitalize()} is {locked.get_status_display().lower()}; "
                "only failed, stalled or not-queued jobs can be retried."
            )
        locked.status, locked.error, locked.attempts, locked.finished_at = model.Status.PENDING, "", 0, None
        locked.save(update_fields=["status", "error", "attempts", "finished_at", "updated_at"])
        job_enqueue_on_commit(job=locked)
    return job_queued_or_raise(job=locked)


@transaction.atomic
def job_cancel(*, job: Job, actor) -> Job:
    """Stop a job that is waiting, failed, stalled or not queued; a later delivery of its task finds
    nothing to claim."""
    _check_may_manage(job=job, actor=actor)
    model = type(job)
    locked = model.objects.select_for_update().get(pk=job.pk)
    if not locked.is_cancellable:
        raise ConflictError(
            f"{job_label(locked).capitalize()} is {locked.get_status_display().lower()} and cannot be cancelled."
        )
    locked.status, locked.finished_at = model.Status.CANCELLED, timezone.now()
    locked.save(update_fields=["status", "finished_at", "updated_at"])
    return locked
