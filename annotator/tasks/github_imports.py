"""Background GitHub imports: run or resume one job; start a sync of every synced repository (beat)."""

import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotator.importers.github import RateLimitedError, TransientGitHubError
from annotator.jobs import GITHUB_IMPORT_TASK, task_send
from annotator.models import ImportJob, Repository
from annotator.services.github_sync import github_client_build, github_import_continue, github_import_start
from core.errors import ConflictError

from .jobs import JOB_TASK_OPTIONS, retry_while_busy

logger = logging.getLogger(__name__)

# Waits up to this long inline; a longer rate-limit wait frees the worker and re-schedules the job.
INLINE_WAIT_SECONDS = 60


@shared_task(
    bind=True,
    name=GITHUB_IMPORT_TASK,
    **JOB_TASK_OPTIONS,
    autoretry_for=(TransientGitHubError,),
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=6,
)
def github_import_run(self, job_id: int) -> None:
    """Takes an id and re-fetches; resumes from the job's cursor, so a redelivered task is harmless."""
    job = ImportJob.objects.filter(pk=job_id, kind=ImportJob.Kind.GITHUB).first()
    if job is None or job.status == ImportJob.Status.DONE:
        return
    wait = getattr(settings, "GITHUB_INLINE_WAIT_SECONDS", INLINE_WAIT_SECONDS)
    try:
        with retry_while_busy(self):
            github_import_continue(job=job, client=github_client_build(max_rate_limit_wait=wait))
    except RateLimitedError:
        job.refresh_from_db()
        logger.info("GitHub import #%s waits for the rate limit until %s", job.pk, job.resume_at)
        # A new message with an ETA rather than self.retry(): waiting is not a failure to count. If the
        # broker is down now, the reaper sends the waiting job again once resume_at has passed.
        task_send(GITHUB_IMPORT_TASK, args=[job.pk], eta=job.resume_at or timezone.now())


@shared_task(name="annotator.github_sync_all", ignore_result=True)
def github_sync_all() -> int:
    """Start an incremental sync of every repository imported from GitHub before (Celery beat)."""
    started = 0
    for repository in Repository.objects.filter(last_synced_at__isnull=False).order_by("pk"):
        last = (
            ImportJob.objects.filter(kind=ImportJob.Kind.GITHUB, parameters__repository_id=repository.pk)
            .order_by("-created_at", "-id")
            .first()
        )
        options = (last.parameters if last else {}) or {}
        try:
            with transaction.atomic():
                github_import_start(
                    repository=repository.full_name,
                    state=options.get("state", "all"),
                    include_pulls=bool(options.get("include_pulls")),
                    fix_links=bool(options.get("fix_links")),
                )
            started += 1
        except ConflictError:
            continue  # a job for it is still under way; the next beat tries again
    return started
