"""The GitHub import pages: who may use them, and what a start or a "sync now" creates."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from annotator.models import ImportedIssue, ImportJob, Issue, Repository
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.github.conftest import REPO, seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(users):
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    return users["owner"]


def snapshot():
    return (ImportJob.objects.count(), Repository.objects.count(), Issue.objects.count())


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403), ("owner", 200), ("staff", 200)])
def test_only_study_owners_see_the_import_page(client_as, owner, role, status):
    response = client_as(role).get(reverse("annotator:github_import"))

    assert response.status_code == status
    if status == 302:
        assert reverse("login") in response["Location"]


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403), ("adjudicator", 403)])
def test_denied_users_start_nothing(client_as, owner, github_settings, role, status):
    before = snapshot()

    response = client_as(role).post(reverse("annotator:github_import"), {"repository": REPO, "state": "all"})

    assert response.status_code == status
    assert snapshot() == before


def test_the_owner_starts_an_import_that_runs_and_shows_its_progress(
    client_as, owner, github_settings, fake_github, django_capture_on_commit_callbacks
):
    seed(fake_github, issues=3, closed=2)
    client = client_as("owner")

    with django_capture_on_commit_callbacks(execute=True):  # tasks run eagerly without a broker
        response = client.post(reverse("annotator:github_import"), {"repository": REPO, "state": "all"})

    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("annotator:github_job", args=[job.pk])
    assert job.created_by == owner
    assert job.status == ImportJob.Status.DONE
    assert Issue.objects.count() == 5
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert b"js/github.js" in page.content and b"<script>" not in page.content
    status = client.get(reverse("annotator:github_job_status", args=[job.pk])).json()
    assert status["status"] == "done" and status["counts"]["created"] == 5 and status["active"] is False
    repository = Repository.objects.get(pk=job.parameters["repository_id"])
    assert repository.full_name == REPO
    assert f'href="/issues/?repository={repository.pk}"'.encode() in page.content, "the result links to the issues"


def test_a_finished_sync_links_to_exactly_its_issues(
    client_as, owner, github_settings, fake_github, django_capture_on_commit_callbacks
):
    seed(fake_github, issues=3, closed=2)
    client = client_as("owner")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("annotator:github_import"), {"repository": REPO, "state": "all"})
    first = ImportJob.objects.get()
    changed = next(iter(fake_github.repo(REPO).issues))
    fake_github.update_issue(REPO, changed, title="Changed on GitHub")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("annotator:github_sync_now", args=[first.parameters["repository_id"]]))
    second = ImportJob.objects.exclude(pk=first.pk).get()
    count = ImportedIssue.objects.filter(job=second).count()
    assert 1 <= count < 5, "the incremental sync listed only what changed (and the last issue again)"

    page = client.get(reverse("annotator:github_job", args=[second.pk])).content.decode()
    assert f'<a href="/issues/?import={second.pk}" data-testid="job-issues-link">' in page
    assert (f"the {count} issues of this import" if count > 1 else "the issue of this import") in page
    assert "every issue of" in page, "the repository's link stays"
    listed = client.get(f"/issues/?import={second.pk}").context["page"].issues
    assert {issue.pk for issue in listed} == set(
        ImportedIssue.objects.filter(job=second).values_list("issue_id", flat=True)
    )
    assert "Changed on GitHub" in [issue.title for issue in listed]
    first_page = client.get(reverse("annotator:github_job", args=[first.pk])).content.decode()
    assert "the 5 issues of this import" in first_page


def test_a_bad_repository_name_is_explained_and_creates_nothing(client_as, owner):
    before = snapshot()

    response = client_as("owner").post(reverse("annotator:github_import"), {"repository": "not a name", "state": "all"})

    assert response.status_code == 400
    assert b"write it as owner/name" in response.content
    assert snapshot() == before


def test_a_second_import_of_the_same_repository_is_refused_while_one_runs(client_as, owner):
    client = client_as("owner")
    client.post(reverse("annotator:github_import"), {"repository": REPO, "state": "all"})
    ImportJob.objects.update(status=ImportJob.Status.RUNNING)

    response = client.post(reverse("annotator:github_import"), {"repository": REPO, "state": "all"})

    assert response.status_code == 400
    assert b"already under way" in response.content
    assert ImportJob.objects.count() == 1


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403)])
def test_sync_now_is_for_owners_only(client_as, owner, role, status):
    repository = Repository.objects.get(name="DeepSpeed")
    before = snapshot()

    response = client_as(role).post(reverse("annotator:github_sync_now", args=[repository.pk]))

    assert response.status_code == status
    assert snapshot() == before


def test_sync_now_repeats_the_last_options_incrementally(
    client_as, owner, github_settings, fake_github, django_capture_on_commit_callbacks
):
    seed(fake_github, issues=2, pulls=2)
    client = client_as("owner")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("annotator:github_import"), {"repository": REPO, "state": "all", "include_pulls": "on"})
    repository = Repository.objects.get(name="DeepSpeed")
    fake_github.requests.clear()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("annotator:github_sync_now", args=[repository.pk]))

    job = ImportJob.objects.order_by("-pk").first()
    assert response.status_code == 302
    assert job.parameters["include_pulls"] is True
    assert job.status == ImportJob.Status.DONE
    assert "since" in fake_github.requests_to("/issues")[0].query
    assert Issue.objects.count() == 4


def test_sync_now_needs_a_post(client_as, owner):
    repository = Repository.objects.get(name="DeepSpeed")

    assert client_as("owner").get(reverse("annotator:github_sync_now", args=[repository.pk])).status_code == 405


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403), ("owner", 200)])
def test_job_pages_are_for_owners_only(client_as, owner, role, status):
    job = ImportJob.objects.create(kind=ImportJob.Kind.GITHUB, parameters={"repository": REPO})

    for name in ("annotator:github_job", "annotator:github_job_status"):
        assert client_as(role).get(reverse(name, args=[job.pk])).status_code == status


def test_a_file_import_job_is_not_shown_as_a_github_job(client_as, owner):
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE)

    assert client_as("owner").get(reverse("annotator:github_job", args=[job.pk])).status_code == 404


def test_the_fix_details_box_reads_the_fixes_in_the_same_job(
    client_as, owner, github_settings, fake_github, django_capture_on_commit_callbacks
):
    seed(fake_github, closed=1)
    fake_github.add_fix(REPO, 1, pull_number=70, sha="e" * 40)
    client = client_as("owner")
    assert b'name="fix_details"' in client.get(reverse("annotator:github_import")).content

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("annotator:github_import"), {"repository": REPO, "state": "all", "fix_details": "on"})

    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.DONE, job.error
    assert (job.parameters["fix_details"], job.parameters["fix_links"]) == (True, True)
    assert job.counts["fixes_fetched"] == 2 and job.counts["fix_files"] == 5
    page = client.get(reverse("annotator:github_job", args=[job.pk])).content.decode()
    assert 'data-count="fixes_fetched,fixes_unchanged,fix_files">2 / 0 / 5<' in page
