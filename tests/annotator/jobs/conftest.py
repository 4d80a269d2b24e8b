"""Fixtures for queued jobs: a broker that is down (a closed port on 127.0.0.1), a real Redis broker,
an owner who may import, a file import job and a study whose replication package can be built."""

import json
import socket
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from annotator.models import ImportJob
from config.celery import app
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.importers.file_records import rest_issue
from tests.redis_server import TEST_REDIS_URL, redis_or_skip

BROKER_KEYS = ("broker_url", "task_always_eager", "result_backend")


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, read, released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def broker(url: str | None):
    """Send tasks to ``url`` (None: run them eagerly in-process, the embedded default)."""
    saved = {key: app.conf[key] for key in BROKER_KEYS}
    app.conf.update(broker_url=url or "memory://", task_always_eager=url is None, result_backend=None)
    # Connections and producers made under another configuration must not be reused.
    app._pool, app.amqp._producer_pool = None, None
    try:
        yield
    finally:
        app.conf.update(saved)
        app._pool, app.amqp._producer_pool = None, None


def broker_down_now():
    return broker(f"redis://127.0.0.1:{closed_port()}/6")


@pytest.fixture
def broker_down():
    with broker_down_now():
        yield


@pytest.fixture
def world(users):
    """A small labelled study (built while the broker is still up: labelling queues tasks too)."""
    from tests.annotator.worlds import labelled_world

    return labelled_world(users, n_issues=2)


@pytest.fixture
def redis_broker():
    """The real Redis broker on the tests' own database, its default queue emptied before and after."""
    redis_or_skip(TEST_REDIS_URL)
    with broker(TEST_REDIS_URL):
        purge_queue()
        yield
        purge_queue()


def purge_queue() -> None:
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(app.conf.task_default_queue)


def queued_messages() -> int:
    with app.connection_for_write() as connection:
        return connection.default_channel.client.llen(app.conf.task_default_queue)


@pytest.fixture(autouse=True)
def media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def owner(users):
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    return users["owner"]


def issues_file(count: int = 3, name: str = "issues.json") -> SimpleUploadedFile:
    content = json.dumps([rest_issue(n) for n in range(1, count + 1)]).encode()
    return SimpleUploadedFile(name, content, content_type="application/json")


def file_job(*, status=ImportJob.Status.PENDING, heartbeat_ago: float | None = None, attempts=0, user=None):
    """A file import job as the browser leaves it, in the given state."""
    job = ImportJob(
        kind=ImportJob.Kind.FILE,
        status=status,
        attempts=attempts,
        created_by=user,
        parameters={"filename": "issues.json", "repo": "", "skip_invalid": False},
    )
    if heartbeat_ago is not None:
        job.heartbeat_at = timezone.now() - timedelta(seconds=heartbeat_ago)
    job.upload.save("issues.json", issues_file(), save=False)
    job.save()
    return job
