"""Sending jobs to the queue and keeping their heartbeat.

Services send tasks through here, by name, so they never import the task modules (which import
the services). Nothing here knows the job models: the services in annotator/services/jobs.py do.
"""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone
from kombu.exceptions import OperationalError

from core.errors import ConflictError, UnavailableError

logger = logging.getLogger(__name__)

FILE_IMPORT_TASK = "annotator.file_import_job_run"
GITHUB_IMPORT_TASK = "annotator.github_import_run"
REPLICATION_PACKAGE_TASK = "annotator.replication_package_run"
SHEETS_READ_TASK = "annotator.sheets_upload_read"
REAP_TASK = "annotator.jobs_reap"

# What publishing raises when the broker cannot be reached (kombu wraps the transport's errors).
BROKER_ERRORS = (OperationalError, ConnectionError, TimeoutError)


class JobNotQueuedError(UnavailableError):
    """The job was saved but the queue could not take it; it is marked "not queued" and sent later."""

    def __init__(self, message: str, *, job_id: int):
        super().__init__(message)
        self.job_id = job_id


class JobBusyError(ConflictError):
    """Another live process holds the job (its heartbeat is fresh): this delivery must not run it too."""


def task_send(name: str, *, args: list, eta: datetime | None = None) -> bool:
    """Send the task called ``name``; False when the broker cannot be reached (the caller records that).

    Without a broker (the embedded default) the task runs here and now, like every eager task.
    """
    app = current_app
    if name not in app.tasks:
        app.loader.import_default_modules()  # registers annotator.tasks without importing it here
    try:
        app.tasks[name].apply_async(args=args, eta=eta)
    except BROKER_ERRORS as exc:
        logger.warning("could not send %s%s to the broker: %s", name, args, exc)
        return False
    return True


def heartbeat_interval() -> float:
    return float(settings.JOB_HEARTBEAT_SECONDS)


def stale_after() -> timedelta:
    return timedelta(seconds=float(settings.JOB_STALE_SECONDS))


def heartbeat_is_stale(heartbeat_at: datetime | None, *, now: datetime | None = None) -> bool:
    """A running job with no heartbeat for JOB_STALE_SECONDS has lost the process that ran it."""
    if heartbeat_at is None:
        return False  # run in-process by a command that never beats: nobody else may take it over
    return heartbeat_at < (now or timezone.now()) - stale_after()


@contextmanager
def heartbeat(model, *, pk: int, running_status: str = "running") -> Iterator[None]:
    """Write the job's heartbeat every JOB_HEARTBEAT_SECONDS from a thread while the block runs.

    A thread, not the job's own progress callbacks: one long step (parsing a file, one big query)
    must not look like a dead worker. The thread has its own database connection and closes it.
    """
    stop = threading.Event()

    def beat() -> None:
        touched = False
        try:
            while not stop.wait(heartbeat_interval()):
                touched = True
                try:
                    model.objects.filter(pk=pk, status=running_status).update(heartbeat_at=timezone.now())
                except DatabaseError:
                    logger.warning("could not write the heartbeat of %s #%s", model.__name__, pk, exc_info=True)
        finally:
            if touched:
                connections.close_all()

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)
