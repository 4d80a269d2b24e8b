"""Repositories and issues: filters, search, keyset pagination stable under inserts, bounded queries."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotator.models import Issue
from tests.annotator.factories_issues import CommentFactory, IssueFactory, RepositoryFactory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
BASE = timezone.make_aware(dt.datetime(2024, 1, 1, 12, 0))


@pytest.fixture
def api():
    client = APIClient()
    client.force_authenticate(UserFactory(username="reader"))
    return client


def make_issues(n, *, repo=None, start=0, **fields):
    repo = repo or RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    return [IssueFactory(repository=repo, created=BASE + dt.timedelta(hours=start + i), **fields) for i in range(n)]


def walk(api, url):
    """Every id on every page, following `next` links."""
    ids, pages = [], 0
    while url:
        body = api.get(url).json()
        ids += [row["id"] for row in body["results"]]
        url, pages = body["next"], pages + 1
        assert pages < 100, "pagination does not end"
    return ids


def test_anonymous_is_refused_with_the_error_body():
    response = APIClient().get("/api/v1/issues/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_issues_come_newest_first_in_pages_that_cover_every_issue_once(api):
    issues = make_issues(7)
    IssueFactory(repository=issues[0].repository, created=None)  # undated issues are not lost
    ids = walk(api, "/api/v1/issues/?page_size=3")
    expected = list(Issue.objects.order_by("-created", "-id").values_list("id", flat=True))
    assert sorted(ids) == sorted(expected) and len(ids) == 8
    dated = [i for i in ids if Issue.objects.get(pk=i).created is not None]
    assert dated == [i.pk for i in sorted(issues, key=lambda i: i.created, reverse=True)]


def test_previous_link_returns_the_page_before(api):
    make_issues(6)
    first = api.get("/api/v1/issues/?page_size=2").json()
    second = api.get(first["next"]).json()
    back = api.get(second["previous"]).json()
    assert [r["id"] for r in back["results"]] == [r["id"] for r in first["results"]]
    assert first["previous"] is None


def test_cursor_pages_are_stable_when_issues_are_inserted_meanwhile(api):
    make_issues(6)
    first = api.get("/api/v1/issues/?page_size=3").json()
    seen = [r["id"] for r in first["results"]]
    # New issues arrive (newer and older than the cursor) while the client pages on.
    make_issues(2, start=100)
    older = make_issues(1, start=-50)
    rest = walk(api, first["next"])
    assert not set(seen) & set(rest), "a row was shown twice"
    assert older[0].pk in rest
    assert len(seen) + len(rest) == 7  # the 6 originals plus the older insert; newer ones belong before page 1


def test_a_tampered_cursor_is_a_400_with_a_message(api):
    response = api.get("/api/v1/issues/?cursor=drop-table")
    assert response.status_code == 400
    assert "cursor" in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("state=closed", {"closed one"}),
        ("kind=pull", {"a pull request"}),
        ("label=needs-repro", {"labelled"}),
        ("search=NCCL%20timeout", {"nccl hang"}),
        ("search=%234242", {"number 42"}),
        ("created_after=2024-06-01T00:00:00Z", {"recent"}),
    ],
)
def test_filters(api, query, expected):
    repo = RepositoryFactory(owner="hpcaitech", name="ColossalAI")
    IssueFactory(repository=repo, title="closed one", state="closed", created=BASE)
    IssueFactory(repository=repo, title="a pull request", kind="pull", created=BASE)
    IssueFactory(repository=repo, title="labelled", labels=["bug", "needs-repro"], created=BASE)
    IssueFactory(repository=repo, title="nccl hang", body="Hit an NCCL timeout at step 3", created=BASE)
    IssueFactory(repository=repo, title="number 42", number=4242, created=BASE)
    IssueFactory(repository=repo, title="recent", created=BASE + dt.timedelta(days=200))
    titles = {row["title"] for row in api.get(f"/api/v1/issues/?{query}").json()["results"]}
    assert titles == expected


def test_repository_filter(api):
    mine = make_issues(2, repo=RepositoryFactory(owner="NVIDIA", name="Megatron-LM"))
    make_issues(3)
    results = api.get(f"/api/v1/issues/?repository={mine[0].repository_id}").json()["results"]
    assert {r["id"] for r in results} == {i.pk for i in mine}


def test_import_filter_lists_that_imports_issues_to_whoever_may_see_the_import(api_as, users, outsider):
    from django.contrib.auth.models import Group

    from annotator.models import ImportedIssue, ImportJob
    from core.permissions import STUDY_OWNERS_GROUP

    owners = Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0]
    users["owner"].groups.add(owners)
    outsider.groups.add(owners)  # an owner of another team
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE, status=ImportJob.Status.DONE, created_by=users["owner"])
    batch = make_issues(2)
    make_issues(3, start=10, repo=batch[0].repository)  # the same repository, another import
    ImportedIssue.objects.bulk_create([ImportedIssue(job=job, issue=issue) for issue in batch])
    url = f"/api/v1/issues/?import={job.pk}"
    assert {r["id"] for r in api_as("owner").get(url).json()["results"]} == {i.pk for i in batch}
    assert {r["id"] for r in api_as("staff").get(url).json()["results"]} == {i.pk for i in batch}
    # Another owner's file import, a rater, an unknown job: an empty list, as for an unknown repository.
    for role, query in (("outsider", url), ("rater_a", url), ("owner", "/api/v1/issues/?import=999999")):
        response = api_as(role).get(query)
        assert response.status_code == 200 and response.json()["results"] == []
    for value in ("0", "-3", "x", "99999999999999999999"):
        response = api_as("owner").get(f"/api/v1/issues/?import={value}")
        assert response.status_code == 400 and "import" in response.json()["error"]["fields"]


def test_a_bad_filter_value_is_a_400_naming_the_field(api):
    response = api.get("/api/v1/issues/?state=melted")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid" and "state" in response.json()["error"]["fields"]


@pytest.mark.parametrize("url", ["/api/v1/issues/?page_size={n}", "/api/v1/repositories/?limit={n}"])
def test_list_queries_do_not_grow_with_rows(api, url):
    def queries(n):
        with CaptureQueriesContext(connection) as ctx:
            assert api.get(url.format(n=n)).status_code == 200
        return len(ctx)

    for i in range(5):
        make_issues(1, repo=RepositoryFactory(owner=f"o{i}", name="r"))
    small = queries(5)
    for i in range(50):
        make_issues(1, repo=RepositoryFactory(owner=f"p{i}", name="r"))
    assert queries(50) == small


def test_issue_detail_has_comments_in_order_and_a_404_body_for_unknown(api):
    issue = make_issues(1)[0]
    CommentFactory(issue=issue, body="second", created=BASE + dt.timedelta(hours=2))
    CommentFactory(issue=issue, body="first", created=BASE + dt.timedelta(hours=1))
    body = api.get(f"/api/v1/issues/{issue.pk}/").json()
    assert [c["body"] for c in body["comments"]] == ["first", "second"]
    missing = api.get("/api/v1/issues/999999/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_repositories_count_their_issues(api):
    repo = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    make_issues(3, repo=repo)
    body = api.get(f"/api/v1/repositories/{repo.pk}/").json()
    assert (body["full_name"], body["issue_count"]) == ("deepspeedai/DeepSpeed", 3)
