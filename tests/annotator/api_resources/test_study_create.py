"""POST /api/v1/studies/: a study with its sample frame, through the same service as the study form."""

import pytest

from annotator.models import Study, StudyFrame
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import make_owner, make_taxonomy

URL = "/api/v1/studies/"


@pytest.fixture
def setup(users):
    owner = make_owner("study_owner")
    taxonomy = make_taxonomy()
    other = make_taxonomy()
    return {"owner": owner, "version": taxonomy["version"], "other": other, "users": users}


def _body(setup, **overrides):
    return {
        "name": "Megatron hangs",
        "taxonomy_version": setup["version"].pk,
        "raters": ["rater_a", "rater_b"],
        "frame": {"kind": "search", "search": {"q": "NCCL", "state": "closed", "created_from": "2024-01-01"}},
        **overrides,
    }


@pytest.mark.django_db
def test_an_owner_creates_a_study_from_a_saved_search(setup):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(setup["owner"])
    IssueFactory(title="NCCL timeout", state="closed")
    response = client.post(URL, _body(setup, dimensions=["symptom"]), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["dimensions"] == ["symptom"] and body["my_roles"] == ["owner"]
    assert body["frame"]["kind"] == "search" and body["frame"]["number"] == 1
    assert body["frame"]["definition"]["q"] == "NCCL" and body["frame"]["definition"]["created_from"] == "2024-01-01"
    frame = StudyFrame.objects.get(study_id=body["id"])
    assert frame.created_by == setup["owner"]


@pytest.mark.django_db
def test_a_saved_search_may_name_an_import_the_owner_may_see(setup):
    from rest_framework.test import APIClient

    from annotator.models import ImportJob

    client = APIClient()
    client.force_authenticate(setup["owner"])
    sync = ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB, status=ImportJob.Status.DONE, parameters={"repository": "org/repo"}
    )
    another_teams = ImportJob.objects.create(
        kind=ImportJob.Kind.FILE, status=ImportJob.Status.DONE, created_by=setup["users"]["owner"]
    )
    refused = _body(setup, frame={"kind": "search", "search": {"import_job": another_teams.pk}})
    response = client.post(URL, refused, format="json")
    assert response.status_code == 400 and "Choose a file or GitHub import" in response.content.decode()
    assert not Study.objects.exists()
    response = client.post(
        URL, _body(setup, frame={"kind": "search", "search": {"import_job": sync.pk}}), format="json"
    )
    assert response.status_code == 201, response.content
    definition = response.json()["frame"]["definition"]
    assert (definition["import_job"], definition["import_name"]) == (sync.pk, "org/repo")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"dimensions": ["no_such_key"]}, 404),
        ({"raters": ["nobody"]}, 404),
        ({"taxonomy_version": 10**12}, 404),
        ({"frame": {"kind": "search", "search": {}}}, 400),
        ({"frame": {"kind": "explicit", "issues": [10**12]}}, 400),
        ({"raters_per_issue": 3}, 400),
        ({"name": "   "}, 400),
    ],
)
def test_a_refused_creation_says_why_and_creates_nothing(setup, change, status):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(setup["owner"])
    response = client.post(URL, _body(setup, **change), format="json")
    assert response.status_code == status, response.content
    assert not Study.objects.exists()


@pytest.mark.django_db
def test_another_versions_dimension_cannot_be_chosen(setup):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(setup["owner"])
    other_key_only_there = setup["other"]["dims"]["symptom"]
    other_key_only_there.key = "other_only"
    other_key_only_there.save(update_fields=["key"])
    response = client.post(URL, _body(setup, dimensions=["other_only"]), format="json")
    assert response.status_code == 404
    assert not Study.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "status"), [("anonymous", 401), ("rater_a", 403), ("outsider", 403)])
def test_only_study_owners_create_studies(setup, api_as, role, status):
    response = api_as(role).post(URL, _body(setup), format="json")
    assert response.status_code == status
    assert not Study.objects.exists()


@pytest.mark.django_db
def test_a_second_study_of_the_same_name_is_a_conflict(setup):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(setup["owner"])
    assert client.post(URL, _body(setup), format="json").status_code == 201
    assert client.post(URL, _body(setup, name="megatron HANGS"), format="json").status_code == 409
    assert Study.objects.count() == 1
