"""My annotations (only ever my own), blindness across every resource, and import jobs (owners/staff)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.models import Annotation, ImportJob
from tests.annotator.api_resources.conftest import ROLES, submit

pytestmark = pytest.mark.django_db


def test_me_annotations_lists_only_mine(world, api_as, users):
    submit(world, users, "rater_a", 0)
    body = api_as("rater_a").get("/api/v1/me/annotations/").json()
    mine = set(Annotation.objects.filter(assignment__rater=users["rater_a"]).values_list("pk", flat=True))
    assert body["count"] == 5 and {row["id"] for row in body["results"]} == mine
    assert {row["rater"] for row in body["results"]} == {"rater_a"}
    # An owner or adjudicator has no annotations of their own: they see none here either.
    assert api_as("owner").get("/api/v1/me/annotations/").json()["count"] == 0


def test_me_annotations_filters(world, api_as, users):
    submit(world, users, "rater_a", 0)
    client = api_as("rater_a")
    assert client.get("/api/v1/me/annotations/?submitted=true").json()["count"] == 1
    assert client.get("/api/v1/me/annotations/?submitted=false").json()["count"] == 4
    assert client.get("/api/v1/me/annotations/?status=submitted").json()["count"] == 1
    assert client.get(f"/api/v1/me/annotations/?study={world.study.pk + 1000}").json()["count"] == 0


def test_me_annotations_queries_do_not_grow(users, api_as, outsider):
    from tests.annotator.factories_issues import IssueFactory
    from tests.annotator.studies.factories import draw, make_study

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert api_as("rater_a").get("/api/v1/me/annotations/?limit=200").status_code == 200
        return len(ctx)

    def study(i):
        made = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], name=f"study {i}")
        draw(made, actor=users["owner"], size=5, seed=i)

    IssueFactory.create_batch(5)
    study(0)
    small = queries()
    for i in range(1, 10):
        study(i)
    assert Annotation.objects.filter(assignment__rater=users["rater_a"]).count() == 50
    assert queries() == small


def test_rater_b_never_reads_rater_a_labels_through_any_resource(world, api_as, users):
    """Blindness: whatever rater B asks, rater A's note and labels never appear before publication."""
    a = submit(world, users, "rater_a", 0, root_cause=1)
    Annotation.objects.filter(pk=a.pk).update(note="SECRET-NOTE-OF-A", proposals={"symptom": "SECRET-PROPOSAL"})
    client = api_as("rater_b")
    study = world.study.pk
    urls = [
        f"/api/v1/annotations/{a.pk}/",
        f"/api/v1/studies/{study}/",
        f"/api/v1/studies/{study}/category-counts/",
        f"/api/v1/studies/{study}/category-counts/?source=raters",
        f"/api/v1/studies/{study}/assignments/mine/",
        f"/api/v1/studies/{study}/agreement/",
        f"/api/v1/studies/{study}/resolutions/",
        "/api/v1/studies/",
        f"/api/v1/issues/{world.a.study_issue.issue_id}/",
        f"/api/v1/public/studies/{world.study.slug}/dataset/",
        f"/api/v1/public/studies/{world.study.slug}/agreement/",
    ]
    mine = client.get("/api/v1/me/annotations/").json()["results"]
    assert a.pk not in {row["id"] for row in mine} and {row["rater"] for row in mine} == {"rater_b"}
    for url in urls:
        response = client.get(url)
        assert response.status_code in {200, 403, 404}, url
        text = response.content.decode()
        assert "SECRET-NOTE-OF-A" not in text and "SECRET-PROPOSAL" not in text, f"rater A's labels leaked at {url}"
        if "annotation" in url or "category-counts" in url or "agreement" in url or "resolutions" in url:
            assert response.status_code in {403, 404}, f"{url} answered {response.status_code} to rater B"


IMPORTS = {
    "anonymous": 401,
    "rater_a": 403,
    "rater_b": 403,
    "adjudicator": 403,
    "owner": 200,
    "staff": 200,
    "outsider": 403,
}


@pytest.fixture
def job(users):
    return ImportJob.objects.create(
        kind=ImportJob.Kind.FILE, status=ImportJob.Status.DONE, counts={"created": 3}, created_by=users["owner"],
        problems=[{"line": 2, "message": "no url"}],
    )  # fmt: skip


@pytest.mark.parametrize("role", ROLES)
def test_import_jobs_role_matrix(world, job, api_as, role):
    listing = api_as(role).get("/api/v1/import-jobs/")
    detail = api_as(role).get(f"/api/v1/import-jobs/{job.pk}/")
    assert (listing.status_code, detail.status_code) == (IMPORTS[role], IMPORTS[role])
    if IMPORTS[role] == 200:
        assert listing.json()["results"][0]["id"] == job.pk and "problems" not in listing.json()["results"][0]
        assert detail.json()["problems"] == [{"line": 2, "message": "no url"}]
    else:
        assert "error" in detail.json()


def test_import_jobs_filter_by_status(world, job, api_as):
    assert api_as("owner").get("/api/v1/import-jobs/?status=failed").json()["count"] == 0
    assert api_as("owner").get("/api/v1/import-jobs/?status=done&kind=file").json()["count"] == 1


@pytest.mark.parametrize("url", ["/api/v1/me/annotations/?study={n}", "/api/v1/issues/?repository={n}"])
def test_ids_beyond_the_database_range_are_a_400(world, api_as, url):
    """Found by Schemathesis: a huge id overflowed SQLite's integer and answered 500."""
    response = api_as("rater_a").get(url.format(n=10**40))
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
