"""The Imports pages: who may use them, an upload run as a job, its status and problems."""

import json

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.models import Comment, ImportJob, Issue, Repository
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.importers.file_records import gh_issue, rest_issue

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def owner(users):
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    return users["owner"]


def upload(records, name="issues.json", **fields):
    content = json.dumps(records).encode()
    return {"upload": SimpleUploadedFile(name, content, content_type="application/json"), **fields}


def post_upload(client, data, capture):
    with capture(execute=True):
        return client.post("/imports/", data)


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403), ("owner", 200), ("staff", 200)])
def test_only_study_owners_and_staff_see_the_imports_page(client_as, owner, role, status):
    response = client_as(role).get("/imports/")
    assert response.status_code == status
    if role == "anonymous":
        assert response.url.startswith("/accounts/login/")


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater_a", 403), ("adjudicator", 403)])
def test_others_cannot_upload_and_nothing_is_created(
    client_as, owner, django_capture_on_commit_callbacks, role, status
):
    response = post_upload(client_as(role), upload([rest_issue(1)]), django_capture_on_commit_callbacks)
    assert response.status_code == status
    assert ImportJob.objects.count() == 0
    assert Issue.objects.count() == 0


def test_an_owner_upload_runs_as_a_job_and_reports_its_counts(client_as, owner, django_capture_on_commit_callbacks):
    client = client_as("owner")
    data = upload([rest_issue(n, comments=2) for n in range(1, 4)] + [gh_issue(9)])
    response = post_upload(client, data, django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response.url == f"/imports/{job.pk}/"
    assert (job.kind, job.status, job.created_by) == (ImportJob.Kind.FILE, ImportJob.Status.DONE, owner)
    assert job.upload.name.endswith(".json")
    assert {k: job.counts[k] for k in ("created", "updated", "unchanged", "invalid")} == {
        "created": 4,
        "updated": 0,
        "unchanged": 0,
        "invalid": 0,
    }
    assert job.counts["comments_created"] == 8
    assert (job.progress_done, job.progress_total) == (4, 4)
    assert job.started_at and job.finished_at
    assert (Issue.objects.count(), Comment.objects.count()) == (4, 8)
    page = client.get(response.url)
    assert page.status_code == 200
    assert "Summary" in page.content.decode()


def test_a_second_upload_of_the_same_file_reports_everything_unchanged(
    client_as, owner, django_capture_on_commit_callbacks
):
    client = client_as("owner")
    post_upload(client, upload([rest_issue(1), rest_issue(2)]), django_capture_on_commit_callbacks)
    post_upload(client, upload([rest_issue(1), rest_issue(2)]), django_capture_on_commit_callbacks)
    latest = ImportJob.objects.order_by("-id").first()
    assert (latest.counts["created"], latest.counts["unchanged"]) == (0, 2)


def test_an_upload_with_invalid_records_fails_lists_them_and_writes_nothing(
    client_as, owner, django_capture_on_commit_callbacks
):
    client = client_as("owner")
    post_upload(
        client, upload([rest_issue(1), {"url": "https://x.org/1", "title": 7}]), django_capture_on_commit_callbacks
    )
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert job.problems == [
        {"location": "issues.json record 2 (line 1)", "field": "title", "message": "must be text, got a number"}
    ]
    assert "nothing was imported" in job.error
    assert Issue.objects.count() == 0
    page = client.get(f"/imports/{job.pk}/").content.decode()
    assert "must be text, got a number" in page


def test_skip_invalid_from_the_browser_imports_the_valid_records(client_as, owner, django_capture_on_commit_callbacks):
    data = upload([rest_issue(1), {"url": "https://x.org/1"}], skip_invalid="on")
    post_upload(client_as("owner"), data, django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.DONE
    assert (job.counts["created"], job.counts["invalid"]) == (1, 1)
    assert len(job.problems) == 1


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"repo": "not/a/repo"}, "owner/name"),
        ({"name": "issues.exe"}, "not a JSON, JSON Lines or CSV file"),
    ],
)
def test_a_bad_form_is_shown_again_with_the_reason(client_as, owner, django_capture_on_commit_callbacks, data, words):
    name = data.pop("name", "issues.json")
    response = post_upload(
        client_as("owner"), upload([rest_issue(1)], name=name, **data), django_capture_on_commit_callbacks
    )
    assert response.status_code == 400
    assert words in response.content.decode()
    assert ImportJob.objects.count() == 0


def test_the_status_endpoint_reports_progress_to_owners_only(client_as, owner):
    job = ImportJob.objects.create(
        kind=ImportJob.Kind.FILE, status=ImportJob.Status.RUNNING, progress_done=3, progress_total=10, created_by=owner
    )
    response = client_as("owner").get(f"/imports/{job.pk}/status")
    assert response.status_code == 200
    assert response.json() | {} == {
        "id": job.pk,
        "status": "running",
        "status_display": "Running",
        "active": True,
        "stale": False,
        "progress_done": 3,
        "progress_total": 10,
        "counts": {},
        "error": "",
    }
    assert client_as("rater_a").get(f"/imports/{job.pk}/status").status_code == 403
    assert client_as("owner").get("/imports/999999/status").status_code == 404


def test_a_running_job_page_polls_with_the_script_and_no_inline_code(client_as, owner):
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE, status=ImportJob.Status.RUNNING, created_by=owner)
    html = client_as("owner").get(f"/imports/{job.pk}/").content.decode()
    assert f'data-status-url="/imports/{job.pk}/status"' in html
    assert "js/imports.js" in html
    assert "<script>" not in html and "style=" not in html


def test_the_job_list_costs_the_same_number_of_queries_for_many_jobs(client_as, owner):
    client = client_as("owner")
    ImportJob.objects.create(kind=ImportJob.Kind.FILE, created_by=owner)
    client.get("/imports/")
    with CaptureQueriesContext(connection) as few:
        client.get("/imports/")
    ImportJob.objects.bulk_create([ImportJob(kind=ImportJob.Kind.FILE, created_by=owner) for _ in range(30)])
    with CaptureQueriesContext(connection) as many:
        response = client.get("/imports/")
    assert len(many) == len(few)
    assert response.content.decode().count("/imports/") > 30


def test_an_import_into_a_repository_links_to_that_repositorys_issues(
    client_as, owner, django_capture_on_commit_callbacks
):
    client = client_as("owner")
    post_upload(client, upload([rest_issue(1, repo="NVIDIA/Megatron-LM")]), django_capture_on_commit_callbacks)
    data = upload([rest_issue(n) for n in (1, 2)], repo="deepspeedai/deepspeed")  # the repository's case differs
    post_upload(client, data, django_capture_on_commit_callbacks)
    job = ImportJob.objects.order_by("-id").first()
    deepspeed = Repository.objects.get(name="DeepSpeed")
    page = client.get(f"/imports/{job.pk}/").content.decode()
    link = f'href="/issues/?repository={deepspeed.pk}"'
    assert link in page and "every issue of deepspeedai/DeepSpeed" in page
    listed = client.get(f"/issues/?repository={deepspeed.pk}").content.decode()
    assert listed.count("ZeRO-3 hangs at step") == 2, "the link lists the two DeepSpeed issues, not Megatron's"


def test_an_import_links_to_exactly_the_issues_it_wrote_or_found_unchanged(
    client_as, owner, django_capture_on_commit_callbacks
):
    client = client_as("owner")
    post_upload(client, upload([rest_issue(n) for n in (1, 2, 3)]), django_capture_on_commit_callbacks)
    post_upload(client, upload([rest_issue(n) for n in (2, 3)], name="again.json"), django_capture_on_commit_callbacks)
    job = ImportJob.objects.order_by("-id").first()
    page = client.get(f"/imports/{job.pk}/").content.decode()
    assert f'<a href="/issues/?import={job.pk}" data-testid="job-issues-link">the 2 issues of this import</a>' in page
    assert "every issue of" not in page, "each issue's repository came from its URL: the file names none"
    listed = client.get(f"/issues/?import={job.pk}")
    assert sorted(issue.number for issue in listed.context["page"].issues) == [2, 3]
    assert f"Issues of import #{job.pk} (again.json)" in listed.content.decode()


def test_an_import_of_one_issue_says_so(client_as, owner, django_capture_on_commit_callbacks):
    client = client_as("owner")
    post_upload(client, upload([rest_issue(1)], repo="deepspeedai/DeepSpeed"), django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()
    page = client.get(f"/imports/{job.pk}/").content.decode()
    assert ">the issue of this import</a>, or <a" in page and "every issue of deepspeedai/DeepSpeed" in page


def test_an_import_that_recorded_no_issues_keeps_the_repository_link_or_none(client_as, owner):
    """Jobs run before imports recorded their issues: the repository's issues as before, or no link."""
    done = {"kind": ImportJob.Kind.FILE, "status": ImportJob.Status.DONE, "created_by": owner}
    named = ImportJob.objects.create(parameters={"repo": "deepspeedai/DeepSpeed"}, counts={"created": 2}, **done)
    Repository.objects.get_or_create(host="github.com", owner="deepspeedai", name="DeepSpeed")
    page = client_as("owner").get(f"/imports/{named.pk}/").content.decode()
    assert "See the issues: <a" in page and "every issue of deepspeedai/DeepSpeed" in page
    assert "job-issues-link" not in page
    unnamed = ImportJob.objects.create(**done)
    assert 'data-testid="job-issues"' not in client_as("owner").get(f"/imports/{unnamed.pk}/").content.decode()
