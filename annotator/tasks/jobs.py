"""What every job task shares, and the reaper that Celery beat runs every JOB_REAPER_SECONDS."""

from contextlib import contextmanager

from celery import shared_task
from django.conf import settings

from annotator.jobs import REAP_TASK, JobBusyError
from annotator.services.jobs import jobs_reap

# Late acks: a message is acknowledged only once its job ended, so a worker killed mid-job loses
# nothing; reject-on-worker-lost hands the message straight back when a pool process dies. The
# job's claim (and its attempt count) makes the second delivery safe.
JOB_TASK_OPTIONS = {"acks_late": True, "reject_on_worker_lost": True, "ignore_result": True}


@contextmanager
def retry_while_busy(task):
    """A redelivered message whose job still has a fresh heartbeat (the killed worker beat a moment
    ago, or a live one runs it) looks again once that heartbeat would have gone stale."""
    try:
        yield
    except JobBusyError as exc:
        raise task.retry(exc=exc, countdown=settings.JOB_STALE_SECONDS) from None


@shared_task(name=REAP_TASK, ignore_result=True)
def jobs_reap_run() -> str:
    return jobs_reap().summary()
