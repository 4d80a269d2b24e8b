"""A GitHub import started from the page, run by a real Celery worker over the Redis broker."""

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth.models import Group
from django.urls import reverse

from annotator.models import ImportJob, Issue
from annotator.tasks import github_imports  # noqa: F401  (the worker must know the task when it starts)
from config.celery import app
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.github.conftest import REPO, seed
from tests.redis_server import TEST_REDIS_URL, redis_or_skip

BROKER_URL = TEST_REDIS_URL


@pytest.fixture
def redis_celery_app():
    redis_or_skip(BROKER_URL)
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=BROKER_URL, task_always_eager=False, result_backend=None)
    # Connections and producers made under the eager configuration must not be reused.
    app._pool, app.amqp._producer_pool = None, None
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(app.conf.task_default_queue)
    try:
        with start_worker(app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=10):
            yield app
    finally:
        app.conf.update(saved)
        app._pool, app.amqp._producer_pool = None, None


@pytest.mark.celery_worker
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_an_import_started_from_the_page_is_done_by_the_worker(
    redis_celery_app, client_as, users, github_settings, fake_github
):
    seed(fake_github, issues=150, closed=30, pulls=10)
    fake_github.add_comment(REPO, 1)
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])

    response = client_as("owner").post(reverse("annotator:github_import"), {"repository": REPO, "state": "all"})

    assert response.status_code == 302
    job = ImportJob.objects.get()
    deadline = time.monotonic() + 60
    while job.status != ImportJob.Status.DONE and time.monotonic() < deadline:
        assert job.status != ImportJob.Status.FAILED, job.error
        time.sleep(0.2)
        job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, f"job still {job.status} after 60 s"
    assert (job.counts["created"], job.counts["pulls_skipped"], job.counts["comments_created"]) == (180, 10, 1)
    assert job.counts["requests"] == 3  # two pages of issues, one of comments
    assert Issue.objects.count() == 180
