"""`manage.py import_github` and the Celery tasks (eager here; a real worker in test_github_celery_worker)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotator.models import ImportJob, Issue, Repository
from annotator.services.github_sync import github_import_start
from annotator.tasks import github_imports
from tests.annotator.github.conftest import REPO, seed

pytestmark = pytest.mark.django_db


def test_the_command_imports_and_prints_a_summary(github_settings, fake_github):
    seed(fake_github, issues=3, closed=2, pulls=2)
    out, err = StringIO(), StringIO()

    call_command("import_github", REPO, "--state", "all", "--include-pulls", "--fix-links", stdout=out, stderr=err)

    assert Issue.objects.count() == 7
    assert "issues created 7" in out.getvalue()
    assert "requests" in out.getvalue()
    assert len(fake_github.requests_to("/timeline")) == 2  # closed issues only, not pull requests
    query = fake_github.requests_to("/issues")[0].query
    assert (query["state"], query["sort"], query["direction"]) == ("all", "updated", "asc")


def test_the_command_passes_since_state_and_limit(github_settings, fake_github):
    seed(fake_github, issues=3, closed=3)

    call_command("import_github", REPO, "--since", "2024-01-01", "--state", "closed", "--limit", "2", stdout=StringIO())

    query = fake_github.requests_to("/issues")[0].query
    assert (query["since"], query["state"]) == ("2024-01-01T00:00:00Z", "closed")
    assert Issue.objects.count() == 2


def test_the_command_explains_a_missing_repository(github_settings, fake_github):
    with pytest.raises(CommandError, match="404 Not Found for /repos/nobody/nothing/issues"):
        call_command("import_github", "nobody/nothing", stdout=StringIO(), stderr=StringIO())


def test_the_command_rejects_a_bad_date(github_settings):
    with pytest.raises(CommandError, match="ISO date"):
        call_command("import_github", REPO, "--since", "yesterday", stdout=StringIO())


def test_a_long_rate_limit_wait_reschedules_the_task(github_settings, fake_github, settings, monkeypatch):
    seed(fake_github, issues=3)
    fake_github.faults[1] = "rate_limit"
    settings.GITHUB_INLINE_WAIT_SECONDS = 0  # any wait is "too long": the worker lets go
    scheduled = []
    monkeypatch.setattr(
        github_imports.github_import_run, "apply_async", lambda args, eta: scheduled.append((args, eta))
    )
    job = github_import_start(repository=REPO, enqueue=False)

    github_imports.github_import_run(job.pk)

    job.refresh_from_db()
    assert job.status == ImportJob.Status.WAITING
    assert timezone.now() < job.resume_at < timezone.now() + timedelta(seconds=5)
    assert scheduled == [([job.pk], job.resume_at)]
    assert not Issue.objects.exists()

    github_imports.github_import_run(job.pk)  # what the scheduled message does once the limit resets

    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE
    assert job.resume_at is None
    assert Issue.objects.count() == 3


def test_a_finished_job_is_not_run_again(github_settings, fake_github):
    seed(fake_github, issues=1)
    job = github_import_start(repository=REPO, enqueue=False)
    github_imports.github_import_run(job.pk)
    fake_github.requests.clear()

    github_imports.github_import_run(job.pk)

    assert fake_github.requests == []


def test_sync_all_starts_one_job_per_synced_repository(
    github_settings, fake_github, django_capture_on_commit_callbacks
):
    seed(fake_github, issues=2)
    Repository.objects.filter(name="DeepSpeed").update(last_synced_at=timezone.now() - timedelta(days=1))

    with django_capture_on_commit_callbacks(execute=True):
        started = github_imports.github_sync_all()

    assert started == 1  # the never-synced repositories are left alone
    assert ImportJob.objects.get().status == ImportJob.Status.DONE
    assert Issue.objects.count() == 2


def test_the_command_reads_fix_details_and_says_so(github_settings, fake_github):
    seed(fake_github, closed=2)
    fake_github.add_fix(REPO, 1, pull_number=70, sha="e" * 40)
    out = StringIO()

    call_command("import_github", REPO, "--fix-details", stdout=out, stderr=StringIO())

    job = ImportJob.objects.get()
    assert job.parameters["fix_details"] is True
    assert "fix details fetched 2, unchanged 0, files 5" in out.getvalue()
    assert len(fake_github.requests_to("/pulls/70")) == 1
