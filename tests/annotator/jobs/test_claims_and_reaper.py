"""Claims, heartbeats and the reaper: a job whose worker died is re-queued and finishes, or is failed
after JOB_MAX_ATTEMPTS; a live one is never run twice; a cancelled one is never run."""

import pytest
from django.core.management import call_command

from annotator.jobs import JobBusyError
from annotator.models import ExportJob, ImportJob, Issue
from annotator.services.exports import replication_package_request
from annotator.services.imports import file_import_run
from annotator.tasks.exports import replication_package_run
from annotator.tasks.file_imports import file_import_job_run
from tests.annotator.jobs.conftest import file_job

pytestmark = pytest.mark.django_db

LONG_AGO = 3600  # seconds: far beyond JOB_STALE_SECONDS


def test_a_job_left_running_by_a_killed_worker_is_requeued_by_the_reaper_and_finishes(owner):
    job = file_job(status=ImportJob.Status.RUNNING, heartbeat_ago=LONG_AGO, attempts=1, user=owner)

    call_command("reap_jobs")  # tasks run in-process here: re-queued means run

    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error
    assert job.attempts == 2
    assert Issue.objects.count() == 3


def test_a_job_whose_worker_died_on_every_attempt_is_failed_with_a_reason(owner, settings):
    job = file_job(status=ImportJob.Status.RUNNING, heartbeat_ago=LONG_AGO, attempts=settings.JOB_MAX_ATTEMPTS)

    call_command("reap_jobs")

    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert f"stopped {settings.JOB_MAX_ATTEMPTS} times" in job.error
    assert not Issue.objects.exists()


def test_a_running_job_with_a_fresh_heartbeat_is_left_alone(owner):
    job = file_job(status=ImportJob.Status.RUNNING, heartbeat_ago=1, attempts=1)

    call_command("reap_jobs")
    with pytest.raises(JobBusyError):  # what a duplicate delivery meets: it must not run the job too
        file_import_run(job=job)

    job.refresh_from_db()
    assert (job.status, job.attempts) == (ImportJob.Status.RUNNING, 1)
    assert not Issue.objects.exists()


def test_a_redelivered_task_takes_over_a_job_whose_heartbeat_stopped(owner):
    job = file_job(status=ImportJob.Status.RUNNING, heartbeat_ago=LONG_AGO, attempts=1)

    file_import_job_run(job.pk)

    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error
    assert job.heartbeat_at is not None


def test_a_finished_or_cancelled_job_is_not_run_again_by_a_late_delivery(owner):
    done = file_job(status=ImportJob.Status.DONE)
    cancelled = file_job(status=ImportJob.Status.CANCELLED)

    file_import_job_run(done.pk)
    file_import_job_run(cancelled.pk)

    assert not Issue.objects.exists()
    assert ImportJob.objects.get(pk=cancelled.pk).status == ImportJob.Status.CANCELLED


def test_a_killed_package_build_no_longer_blocks_the_study(world, users):
    stuck = ExportJob.objects.create(
        study=world.study, status=ExportJob.Status.RUNNING, heartbeat_at=None, attempts=1, created_by=users["owner"]
    )
    ExportJob.objects.filter(pk=stuck.pk).update(heartbeat_at="2000-01-01T00:00:00Z")

    replication_package_run(stuck.pk)  # the redelivered message takes the stale build over

    stuck.refresh_from_db()
    assert stuck.status == ExportJob.Status.DONE, stuck.error
    again = replication_package_request(study=world.study, actor=users["owner"])
    assert again.pk != stuck.pk


def test_the_reaper_resends_a_rate_limit_wait_whose_message_was_lost(owner, monkeypatch):
    from annotator.services import jobs

    sent = []
    monkeypatch.setattr(jobs, "task_send", lambda name, args, eta=None: sent.append((name, args)) or True)
    waiting = ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB, status=ImportJob.Status.WAITING, resume_at="2000-01-01T00:00:00Z"
    )
    ImportJob.objects.create(kind=ImportJob.Kind.GITHUB, status=ImportJob.Status.WAITING, resume_at="2999-01-01T00:00Z")

    call_command("reap_jobs")

    assert sent == [("annotator.github_import_run", [waiting.pk])]


def test_celery_beat_runs_the_reaper_task(settings):
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["jobs-reap"]
    assert entry["schedule"] == settings.JOB_REAPER_SECONDS
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks


def test_a_job_that_fails_when_the_reaper_runs_it_in_process_does_not_stop_the_reaper(owner, github_settings):
    from annotator.services.github_sync import github_import_start

    missing = github_import_start(repository="nobody/nothing", enqueue=False)  # GitHub answers 404
    ImportJob.objects.filter(pk=missing.pk).update(status=ImportJob.Status.NOT_QUEUED)
    importing = file_job(status=ImportJob.Status.NOT_QUEUED)

    call_command("reap_jobs")

    missing.refresh_from_db()
    importing.refresh_from_db()
    assert missing.status == ImportJob.Status.FAILED and "404" in missing.error
    assert importing.status == ImportJob.Status.DONE, importing.error


def test_a_job_left_pending_long_after_it_was_sent_is_sent_again_once(owner, settings, monkeypatch):
    from annotator.services import jobs

    sent = []
    monkeypatch.setattr(jobs, "task_send", lambda name, args, eta=None: sent.append(args[0]) or True)
    lost = file_job(status=ImportJob.Status.PENDING)
    ImportJob.objects.filter(pk=lost.pk).update(updated_at="2000-01-01T00:00:00Z")
    file_job(status=ImportJob.Status.PENDING)  # just sent: still in the queue

    call_command("reap_jobs")
    call_command("reap_jobs")

    assert sent == [lost.pk]
