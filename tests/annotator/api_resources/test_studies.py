"""Studies API: the role matrix, pseudonymised members, progress counts, category counts and blindness."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.models import Study
from tests.annotator.api_resources.conftest import ROLES, submit
from tests.annotator.studies.factories import make_study

pytestmark = pytest.mark.django_db

# anonymous 401 (token auth answers with a challenge); outsiders 404: the study's existence is not revealed.
DETAIL = {
    "anonymous": 401,
    "rater_a": 200,
    "rater_b": 200,
    "adjudicator": 200,
    "owner": 200,
    "staff": 200,
    "outsider": 404,
}


@pytest.mark.parametrize("role", ROLES)
def test_study_detail_role_matrix(world, api_as, role):
    response = api_as(role).get(f"/api/v1/studies/{world.study.pk}/")
    assert response.status_code == DETAIL[role]
    assert "error" in response.json() if DETAIL[role] != 200 else response.json()["id"] == world.study.pk


@pytest.mark.parametrize("role", ROLES)
def test_study_list_shows_only_my_studies_and_published_ones(world, api_as, users, role):
    other = make_study(owner=users["staff"], raters=[users["rater_b"], users["staff"]], name="Another study")
    response = api_as(role).get("/api/v1/studies/")
    if role == "anonymous":
        assert response.status_code == 401
        return
    names = {row["name"] for row in response.json()["results"]}
    expected = {
        "staff": {world.study.name, other.name},
        "outsider": set(),
        "rater_b": {world.study.name, other.name},
    }.get(role, {world.study.name})
    assert names == expected


def test_members_are_named_for_members_and_pseudonymised_for_outsiders(world, api_as):
    Study.objects.filter(pk=world.study.pk).update(phase=Study.Phase.PUBLISHED)
    as_member = api_as("rater_a").get(f"/api/v1/studies/{world.study.pk}/").json()["members"]
    as_outsider = api_as("outsider").get(f"/api/v1/studies/{world.study.pk}/").json()["members"]
    assert {m["name"] for m in as_member} >= {"rater_a", "rater_b", "owner", "adjudicator"}
    assert sorted(m["name"] for m in as_outsider) == ["A1", "O1", "R1", "R2"]
    assert not {"rater_a", "rater_b", "owner"} & {m["name"] for m in as_outsider}


def test_progress_counts(world, api_as, users):
    submit(world, users, "rater_a", 0)
    submit(world, users, "rater_b", 0)  # same labels: resolved at once
    submit(world, users, "rater_a", 1)
    submit(world, users, "rater_b", 1, root_cause=2)  # disagree: pending
    progress = api_as("owner").get(f"/api/v1/studies/{world.study.pk}/").json()["progress"]
    assert progress == {
        "scope": "study",
        "issues": 5,
        "assignments": 10,
        "submitted": 4,
        "skipped": 0,
        "resolved": 1,
        "pending": 1,
    }


def test_study_list_queries_do_not_grow_with_studies(world, api_as, users):
    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert api_as("staff").get("/api/v1/studies/?limit=100").status_code == 200
        return len(ctx)

    for i in range(4):
        make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], name=f"small {i}")
    small = queries()
    for i in range(45):
        make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], name=f"large {i}")
    assert Study.objects.count() == 50
    assert queries() == small


# Category counts: final labels and raters' labels are hidden from raters of a blind, unpublished study.
COUNTS = {
    "anonymous": 401,
    "rater_a": 403,
    "rater_b": 403,
    "adjudicator": 200,
    "owner": 200,
    "staff": 200,
    "outsider": 404,
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("source", ["final", "raters"])
def test_category_counts_role_matrix(world, api_as, users, role, source):
    submit(world, users, "rater_a", 0)
    response = api_as(role).get(f"/api/v1/studies/{world.study.pk}/category-counts/?source={source}")
    assert response.status_code == COUNTS[role]
    if COUNTS[role] == 403:
        assert "blind" in response.json()["error"]["message"]


def test_category_counts_add_up_subtrees(labelled, api_as):
    body = api_as("owner").get(f"/api/v1/studies/{labelled.study.pk}/category-counts/").json()
    assert (body["issues"], body["excluded"]) == (5, 0)
    root_cause = next(d for d in body["dimensions"] if d["key"] == "root_cause")
    by_code = {c["code"]: c for c in root_cause["categories"]}
    # index % 2 -> root_cause-0 on issues 0, 2, 4 and root_cause-1 on issues 1, 3
    assert (by_code["root_cause-0"]["count"], by_code["root_cause-1"]["count"]) == (3, 2)
    assert (by_code["root_cause-group"]["count"], by_code["root_cause-group"]["total"]) == (0, 5)
    raters = api_as("owner").get(f"/api/v1/studies/{labelled.study.pk}/category-counts/?source=raters").json()
    root = next(d for d in raters["dimensions"] if d["key"] == "root_cause")
    assert next(c for c in root["categories"] if c["code"] == "root_cause-group")["total"] == 10


def test_category_counts_open_to_raters_once_published(published, api_as):
    assert api_as("rater_b").get(f"/api/v1/studies/{published.study.pk}/category-counts/").status_code == 200


def test_unknown_source_is_a_400(world, api_as):
    response = api_as("owner").get(f"/api/v1/studies/{world.study.pk}/category-counts/?source=gossip")
    assert response.status_code == 400 and "source" in response.json()["error"]["fields"]
