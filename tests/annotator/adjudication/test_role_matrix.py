"""Every adjudication page, endpoint and history view, for every role, with exact status codes.

A denied request must leave resolutions, annotations and their histories as they were.
"""

import pytest
from rest_framework.test import APIClient

from annotator.models import Annotation, AnnotationHistory, Resolution, ResolutionHistory, ResolutionValue, Study

ROLES = ["anonymous", "outsider", "rater_a", "rater_b", "adjudicator", "owner", "staff"]
READERS = {
    "anonymous": 302,
    "outsider": 404,
    "rater_a": 403,
    "rater_b": 403,
    "adjudicator": 200,
    "owner": 200,
    "staff": 200,
}


def snapshot() -> tuple:
    return (
        list(Resolution.objects.order_by("pk").values_list("pk", "version", "status", "methods", "note")),
        list(ResolutionValue.objects.order_by("pk").values_list("resolution_id", "category_id", "proposal")),
        ResolutionHistory.objects.count(),
        list(Annotation.objects.order_by("pk").values_list("pk", "version", "frozen")),
        AnnotationHistory.objects.count(),
        list(Study.objects.values_list("pk", "anonymous_adjudication")),
    )


def _decision(world) -> dict:
    return {
        "version": "1",
        "dim_root_cause": str(world.cats["root_cause"][1].pk),
        "method": "adjudicated",
        "reason": "rater_error",
        "note": "",
    }


PAGES = [
    ("queue", "get", "/studies/{study}/adjudication/", None, READERS),
    ("adjudication page", "get", "/studies/{study}/adjudication/{si}/", None, READERS),
    ("history", "get", "/studies/{study}/issues/{si}/history/", None, READERS),
]
WRITES = [
    (
        "record",
        "/studies/{study}/adjudication/{si}/",
        _decision,
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 302,
            "owner": 302,
            "staff": 302,
        },
    ),
    (
        "send back",
        "/studies/{study}/adjudication/{si}/send-back/",
        lambda world: {"version": "1", "note": "Talk it over."},
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 302,
            "owner": 302,
            "staff": 302,
        },
    ),
    (
        "anonymous setting",
        "/studies/{study}/adjudication/settings/",
        lambda world: {"anonymous": "on"},
        # Adjudicators reach the view but the service refuses them (redirect with a message, nothing changed).
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 302,
            "owner": 302,
            "staff": 302,
        },
    ),
]
CHANGES = {"record": {"adjudicator", "owner", "staff"}, "send back": {"adjudicator", "owner", "staff"}}
CHANGES["anonymous setting"] = {"owner", "staff"}


def _url(template: str, world, disputed) -> str:
    return template.format(study=world.study.pk, si=disputed.pk)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", PAGES, ids=[row[0] for row in PAGES])
def test_pages(world, disputed, client_for, row, role):
    name, method, template, _data, expected = row
    before = snapshot()
    response = getattr(client_for(role), method)(_url(template, world, disputed))
    assert response.status_code == expected[role], f"{name} as {role}"
    assert snapshot() == before, f"{name} as {role} changed something"
    if role == "anonymous":
        assert "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", WRITES, ids=[row[0] for row in WRITES])
def test_page_writes(world, disputed, client_for, row, role):
    name, template, data, expected = row
    before = snapshot()
    response = client_for(role).post(_url(template, world, disputed), data(world))
    assert response.status_code == expected[role], f"{name} as {role}"
    if role in CHANGES[name]:
        assert snapshot() != before, f"{name} as {role} should have changed something"
    else:
        assert snapshot() == before, f"{name} as {role} was denied but changed something"


def _api(users, outsider, role: str) -> APIClient:
    client = APIClient()
    if role == "outsider":
        client.force_authenticate(outsider)
    elif role != "anonymous":
        client.force_authenticate(users[role])
    return client


API_READS = [
    ("study resolutions", "/api/v1/studies/{study}/resolutions/"),
    ("issue resolution", "/api/v1/study-issues/{si}/resolution/"),
]
API_READERS = {
    "anonymous": 401,
    "outsider": 404,
    "rater_a": 403,
    "rater_b": 403,
    "adjudicator": 200,
    "owner": 200,
    "staff": 200,
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", API_READS, ids=[row[0] for row in API_READS])
def test_api_reads(world, disputed, users, outsider, row, role):
    name, template = row
    before = snapshot()
    response = _api(users, outsider, role).get(_url(template, world, disputed))
    assert response.status_code == API_READERS[role], f"{name} as {role}: {response.content[:200]}"
    assert snapshot() == before


@pytest.mark.parametrize("role", ROLES)
def test_api_record(world, disputed, users, outsider, role):
    expected = {
        "anonymous": 401,
        "outsider": 404,
        "rater_a": 403,
        "rater_b": 403,
        "adjudicator": 200,
        "owner": 200,
        "staff": 200,
    }
    body = {
        "version": 1,
        "values": {"root_cause": [world.cats["root_cause"][1].pk]},
        "method": "adjudicated",
        "reason": "ambiguous_text",
    }
    before = snapshot()
    response = _api(users, outsider, role).put(f"/api/v1/study-issues/{disputed.pk}/resolution/", body, format="json")
    assert response.status_code == expected[role], f"as {role}: {response.content[:200]}"
    if expected[role] == 200:
        assert response.json()["status"] == "resolved"
        assert snapshot() != before
    else:
        assert snapshot() == before


@pytest.mark.parametrize("role", ["rater_a", "rater_b"])
def test_raters_read_resolutions_once_the_study_is_no_longer_blind(world, disputed, users, outsider, role):
    Study.objects.filter(pk=world.study.pk).update(blind=False)
    response = _api(users, outsider, role).get(f"/api/v1/studies/{world.study.pk}/resolutions/")
    assert response.status_code == 200
    assert response.json()["count"] == 1
    put = _api(users, outsider, role).put(
        f"/api/v1/study-issues/{disputed.pk}/resolution/", {"version": 1, "method": "adjudicated"}, format="json"
    )
    assert put.status_code == 403
