"""Starting a job while the broker is down: a clear message (503 in the API), the job saved "not
queued" instead of "pending" forever, and sent again by the reaper or Retry once the broker is back."""

import pytest
from django.core.management import call_command

from annotator.models import ExportJob, ImportJob, Issue
from tests.annotator.jobs.conftest import broker, broker_down_now, issues_file, queued_messages

pytestmark = pytest.mark.django_db(transaction=True)  # the job is sent after a real commit

DOWN_MESSAGE = "job queue cannot be reached"


def test_an_upload_while_the_broker_is_down_says_so_and_is_saved_not_queued(client_as, owner, broker_down):
    response = client_as("owner").post("/imports/", {"upload": issues_file()}, follow=True)

    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.NOT_QUEUED
    assert response.redirect_chain == [(f"/imports/{job.pk}/", 302)]
    page = response.content.decode()
    assert DOWN_MESSAGE in page
    assert "Not queued" in page
    assert f'data-testid="job-retry-{job.pk}"' in page
    assert not Issue.objects.exists()


def test_retry_sends_a_not_queued_import_once_the_broker_is_back(client_as, owner, broker_down):
    client = client_as("owner")
    client.post("/imports/", {"upload": issues_file()})
    job = ImportJob.objects.get()

    response = client.post(f"/imports/{job.pk}/retry/", follow=True)  # still down
    job.refresh_from_db()
    assert job.status == ImportJob.Status.NOT_QUEUED
    assert DOWN_MESSAGE in response.content.decode()

    with broker(None):  # back (tasks run in-process here)
        response = client.post(f"/imports/{job.pk}/retry/")
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error
    assert Issue.objects.count() == 3


def test_a_package_build_while_the_broker_is_down_answers_503_with_the_error_body(client_as, world, broker_down):

    response = client_as("owner").post(f"/api/v1/studies/{world.study.pk}/replication-packages/")

    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "unavailable"
    assert DOWN_MESSAGE in error["message"]
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.NOT_QUEUED
    assert f"#{job.pk}" in error["message"]


def test_the_export_page_says_the_queue_is_down_and_the_reaper_sends_the_build_later(client_as, world, broker_down):
    owner = client_as("owner")

    response = owner.post(f"/studies/{world.study.pk}/exports/replication/", follow=True)

    page = response.content.decode()
    assert DOWN_MESSAGE in page
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.NOT_QUEUED
    assert f'data-testid="job-retry-{job.pk}"' in page
    assert f'data-testid="job-cancel-{job.pk}"' in page

    call_command("reap_jobs", stdout=None)  # the broker is still down: nothing changes
    job.refresh_from_db()
    assert job.status == ExportJob.Status.NOT_QUEUED

    with broker(None):
        call_command("reap_jobs")
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE, job.error
    assert job.sha256


def test_asking_again_for_a_not_queued_build_sends_that_build(client_as, world, broker_down):
    owner = client_as("owner")
    owner.post(f"/studies/{world.study.pk}/exports/replication/")

    with broker(None):
        owner.post(f"/studies/{world.study.pk}/exports/replication/")

    job = ExportJob.objects.get()  # the same build, not a second one
    assert job.status == ExportJob.Status.DONE, job.error


def test_the_reaper_puts_a_not_queued_job_on_the_real_broker_once_it_is_back(client_as, owner, redis_broker):
    with broker_down_now():
        client_as("owner").post("/imports/", {"upload": issues_file()})
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.NOT_QUEUED

    call_command("reap_jobs")

    job.refresh_from_db()
    assert job.status == ImportJob.Status.PENDING
    assert queued_messages() == 1


def test_a_github_import_while_the_broker_is_down_opens_its_page_with_the_message(client_as, owner, broker_down):
    response = client_as("owner").post(
        "/imports/github/", {"repository": "deepspeedai/DeepSpeed", "state": "all"}, follow=True
    )

    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.NOT_QUEUED
    assert response.redirect_chain == [(f"/imports/github/jobs/{job.pk}/", 302)]
    page = response.content.decode()
    assert DOWN_MESSAGE in page
    assert f'data-testid="job-retry-{job.pk}"' in page


def test_sync_now_while_the_broker_is_down_opens_the_new_job_with_the_message(client_as, owner, broker_down):
    from annotator.models import Repository

    repository = Repository.objects.create(host="github.com", owner="deepspeedai", name="DeepSpeed")

    response = client_as("owner").post(f"/imports/github/repositories/{repository.pk}/sync/", follow=True)

    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.NOT_QUEUED
    assert response.redirect_chain == [(f"/imports/github/jobs/{job.pk}/", 302)]
    assert DOWN_MESSAGE in response.content.decode()


def test_a_submit_while_the_broker_is_down_is_saved_and_answers_200(users, broker_down):
    """The agreement report's recomputation is queued after the rater's write commits; a broker that cannot
    take it must not turn a saved submit into an error (the agreement page computes the report itself)."""
    from django.core.cache import cache
    from rest_framework.test import APIClient

    from annotator.models import Annotation
    from annotator.services.agreement.version import precompute_lock_key
    from tests.annotator.worlds import build_world

    with broker(None):
        world = build_world(users, n_issues=2)
    api = APIClient()
    api.force_authenticate(users["rater_a"])
    body = {
        "values": {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]},
        "version": 1,
    }
    response = api.post(f"/api/v1/annotations/{world.a.annotation.pk}/submit/", body, format="json")
    assert response.status_code == 200, response.content
    assert Annotation.objects.get(pk=world.a.annotation.pk).submitted_at is not None
    assert cache.get(precompute_lock_key(world.study.pk)) is None, "the next page view may queue it again"
