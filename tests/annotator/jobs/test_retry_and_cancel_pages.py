"""Retry and Cancel on the Imports page, a job's page and the export page, through the services."""

import pytest
from django.core.management import call_command

from annotator.models import ExportJob, ImportJob, Issue
from tests.annotator.jobs.conftest import file_job

pytestmark = pytest.mark.django_db

LONG_AGO = 3600


@pytest.mark.parametrize(
    ("status", "heartbeat_ago", "retry", "cancel"),
    [
        (ImportJob.Status.FAILED, None, True, True),
        (ImportJob.Status.NOT_QUEUED, None, True, True),
        (ImportJob.Status.RUNNING, LONG_AGO, True, True),  # stalled
        (ImportJob.Status.RUNNING, 1, False, False),  # alive
        (ImportJob.Status.PENDING, None, False, True),
        (ImportJob.Status.DONE, None, False, False),
    ],
)
def test_the_imports_page_offers_retry_and_cancel_where_they_apply(
    client_as, owner, status, heartbeat_ago, retry, cancel
):
    job = file_job(status=status, heartbeat_ago=heartbeat_ago, user=owner)

    page = client_as("owner").get("/imports/").content.decode()
    detail = client_as("owner").get(f"/imports/{job.pk}/").content.decode()

    for html in (page, detail):
        assert (f'data-testid="job-retry-{job.pk}"' in html) is retry
        assert (f'data-testid="job-cancel-{job.pk}"' in html) is cancel
    assert (f'data-testid="job-stale-{job.pk}"' in detail) is (heartbeat_ago == LONG_AGO)


def test_retry_runs_a_failed_import_again(client_as, owner, django_capture_on_commit_callbacks):
    job = file_job(status=ImportJob.Status.FAILED, attempts=3, user=owner)
    ImportJob.objects.filter(pk=job.pk).update(error="The worker running this job stopped 3 times")

    with django_capture_on_commit_callbacks(execute=True):  # the task runs in-process after the commit
        response = client_as("owner").post(f"/imports/{job.pk}/retry/")

    assert response.status_code == 302
    assert response.url == f"/imports/{job.pk}/"
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error
    assert (job.error, job.attempts) == ("", 1)
    assert Issue.objects.count() == 3


def test_cancel_stops_a_stalled_import_for_good(client_as, owner):
    job = file_job(status=ImportJob.Status.RUNNING, heartbeat_ago=LONG_AGO, attempts=1, user=owner)

    client_as("owner").post(f"/imports/{job.pk}/cancel/")
    call_command("reap_jobs")

    job.refresh_from_db()
    assert job.status == ImportJob.Status.CANCELLED
    assert not Issue.objects.exists()


def test_a_live_job_cannot_be_cancelled_or_retried(client_as, owner):
    job = file_job(status=ImportJob.Status.RUNNING, heartbeat_ago=1, attempts=1, user=owner)
    client = client_as("owner")

    for action in ("retry", "cancel"):
        response = client.post(f"/imports/{job.pk}/{action}/", follow=True)
        assert "running" in response.content.decode()

    job.refresh_from_db()
    assert (job.status, job.attempts) == (ImportJob.Status.RUNNING, 1)


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403), ("owner", 302)])
@pytest.mark.parametrize("action", ["retry", "cancel"])
def test_only_who_may_import_retries_or_cancels_an_import(client_as, owner, role, status, action):
    job = file_job(status=ImportJob.Status.NOT_QUEUED, user=owner)

    response = client_as(role).post(f"/imports/{job.pk}/{action}/")

    assert response.status_code == status
    job.refresh_from_db()
    assert (job.status != ImportJob.Status.NOT_QUEUED) is (role == "owner")


def test_get_does_not_retry(client_as, owner):
    job = file_job(status=ImportJob.Status.FAILED, user=owner)
    assert client_as("owner").get(f"/imports/{job.pk}/retry/").status_code == 405
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED


def test_the_export_page_retries_and_cancels_package_builds(client_as, world, django_capture_on_commit_callbacks):
    stalled = ExportJob.objects.create(study=world.study, status=ExportJob.Status.RUNNING, attempts=1)
    ExportJob.objects.filter(pk=stalled.pk).update(heartbeat_at="2000-01-01T00:00:00Z")
    owner = client_as("owner")
    page = owner.get(f"/studies/{world.study.pk}/exports/").content.decode()
    assert f'data-testid="job-retry-{stalled.pk}"' in page
    assert f'data-testid="job-cancel-{stalled.pk}"' in page
    assert '<meta http-equiv="refresh"' not in page  # a stalled build does not keep the page reloading

    with django_capture_on_commit_callbacks(execute=True):
        owner.post(f"/studies/{world.study.pk}/exports/replication/{stalled.pk}/retry/")

    stalled.refresh_from_db()
    assert stalled.status == ExportJob.Status.DONE, stalled.error
    failed = ExportJob.objects.create(study=world.study, status=ExportJob.Status.FAILED, error="boom")
    owner.post(f"/studies/{world.study.pk}/exports/replication/{failed.pk}/cancel/")
    failed.refresh_from_db()
    assert failed.status == ExportJob.Status.CANCELLED


@pytest.mark.parametrize(("role", "status"), [("rater_a", 403), ("adjudicator", 403), ("owner", 302)])
def test_only_the_study_owner_retries_a_package_build(client_as, world, role, status):
    failed = ExportJob.objects.create(study=world.study, status=ExportJob.Status.FAILED, error="boom")

    response = client_as(role).post(f"/studies/{world.study.pk}/exports/replication/{failed.pk}/retry/")

    assert response.status_code == status
    failed.refresh_from_db()
    assert (failed.status == ExportJob.Status.FAILED) is (role != "owner")
