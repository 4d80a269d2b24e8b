"""Every page and endpoint of studies and labelling, for every role, with exact status codes.

Each denied request must leave the database as it was.
"""

import pytest
from rest_framework.test import APIClient

from annotator.models import Annotation, AnnotationHistory, AnnotationValue, Assignment, Study, StudyIssue, StudyRound

ROLES = ["anonymous", "outsider", "rater_a", "rater_b", "adjudicator", "owner", "staff"]


def snapshot() -> tuple:
    return (
        list(Study.objects.order_by("pk").values_list("pk", "phase", "guidelines")),
        StudyRound.objects.count(),
        StudyIssue.objects.count(),
        list(Assignment.objects.order_by("pk").values_list("pk", "status", "skip_reason")),
        list(Annotation.objects.order_by("pk").values_list("pk", "version", "note", "submitted_at")),
        AnnotationValue.objects.count(),
        AnnotationHistory.objects.count(),
    )


def _complete(world):
    return {
        "values": {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]},
        "version": 1,
    }


# (name, method, url template, data, {role: status}); statuses below 300 / 302 to a page are "allowed".
PAGES = [
    (
        "study list",
        "get",
        "/studies/",
        None,
        {
            "anonymous": 302,
            "outsider": 200,
            "rater_a": 200,
            "rater_b": 200,
            "adjudicator": 200,
            "owner": 200,
            "staff": 200,
        },
    ),
    (
        "new study form",
        "get",
        "/studies/new/",
        None,
        {
            "anonymous": 302,
            "outsider": 403,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 403,
            "owner": 200,
            "staff": 200,
        },
    ),
    (
        "study page",
        "get",
        "/studies/{study}/",
        None,
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 200,
            "adjudicator": 200,
            "owner": 200,
            "staff": 200,
        },
    ),
    (
        "draw form",
        "get",
        "/studies/{study}/draw/",
        None,
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 403,
            "owner": 200,
            "staff": 200,
        },
    ),
    (
        "queue",
        "get",
        "/studies/{study}/queue/",
        None,
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 200,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
    (
        "next",
        "get",
        "/studies/{study}/next/",
        None,
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 302,
            "rater_b": 302,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
    (
        "labelling page of rater A",
        "get",
        "/studies/{study}/label/{a}/",
        None,
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 404,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
]

WRITES = [
    (
        "edit study",
        "/studies/{study}/edit/",
        {"phase": "pilot", "guidelines": "changed"},
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 403,
            "owner": 302,
            "staff": 302,
        },
    ),
    (
        "draw a round",
        "/studies/{study}/draw/",
        {"round_kind": "main", "stratification": "none", "size": 1, "seed": 1},
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 403,
            "rater_b": 403,
            "adjudicator": 403,
            "owner": 302,
            "staff": 302,
        },
    ),
    (
        "save rater A's draft",
        "/studies/{study}/label/{a}/",
        {"action": "draft", "version": 1, "note": "x"},
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 302,
            "rater_b": 404,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
    (
        "skip rater A's issue",
        "/studies/{study}/label/{a}/skip/",
        {"reason": "dup"},
        {
            "anonymous": 302,
            "outsider": 404,
            "rater_a": 302,
            "rater_b": 404,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
]

API_READS = [
    (
        "next assignment",
        "/api/v1/studies/{study}/assignments/next/",
        {
            "anonymous": 401,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 200,
            "adjudicator": 200,
            "owner": 200,
            "staff": 200,
        },
    ),
    (
        "my assignments",
        "/api/v1/studies/{study}/assignments/mine/",
        {
            "anonymous": 401,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 200,
            "adjudicator": 200,
            "owner": 200,
            "staff": 200,
        },
    ),
    (
        "rater A's annotation",
        "/api/v1/annotations/{annotation}/",
        {
            "anonymous": 401,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 404,
            "adjudicator": 200,
            "owner": 200,
            "staff": 200,
        },
    ),
]

API_WRITES = [
    (
        "draft",
        "put",
        "/api/v1/annotations/{annotation}/draft/",
        {
            "anonymous": 401,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 404,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
    (
        "submit",
        "post",
        "/api/v1/annotations/{annotation}/submit/",
        {
            "anonymous": 401,
            "outsider": 404,
            "rater_a": 200,
            "rater_b": 404,
            "adjudicator": 403,
            "owner": 403,
            "staff": 403,
        },
    ),
]


def _url(template, world):
    return template.format(study=world.study.pk, a=world.a.pk, annotation=world.a.annotation.pk)


def _cases(table):
    return [pytest.param(row, role, id=f"{row[0]}-{role}") for row in table for role in ROLES]


@pytest.mark.parametrize(("row", "role"), _cases(PAGES))
def test_pages(world, client_for, row, role):
    _name, method, template, _data, expected = row
    before = snapshot()
    response = getattr(client_for(role), method)(_url(template, world))
    assert response.status_code == expected[role]
    if role == "anonymous":
        assert response.url.startswith("/accounts/login/")
    assert snapshot() == before


@pytest.mark.parametrize(("row", "role"), _cases(WRITES))
def test_page_writes(world, client_for, row, role):
    from tests.annotator.studies.factories import IssueFactory

    IssueFactory(repository=world.repo)  # something left to draw
    _name, template, data, expected = row
    before = snapshot()
    response = client_for(role).post(_url(template, world), data)
    assert response.status_code == expected[role]
    if expected[role] in (403, 404) or role == "anonymous":
        assert snapshot() == before
    else:
        assert snapshot() != before


@pytest.mark.parametrize(("row", "role"), _cases(API_READS))
def test_api_reads(world, users, outsider, row, role):
    _name, template, expected = row
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(outsider if role == "outsider" else users[role])
    before = snapshot()
    response = client.get(_url(template, world))
    assert response.status_code == expected[role]
    assert snapshot() == before


@pytest.mark.parametrize(("row", "role"), _cases(API_WRITES))
def test_api_writes(world, users, outsider, row, role):
    _name, method, template, expected = row
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(outsider if role == "outsider" else users[role])
    before = snapshot()
    response = getattr(client, method)(_url(template, world), _complete(world), format="json")
    assert response.status_code == expected[role], response.content
    if expected[role] == 200:
        assert snapshot() != before
    else:
        assert snapshot() == before


def test_no_response_to_rater_b_mentions_rater_a_labels(world, users, client_for):
    """Rater A labels with a distinctive note and proposal; nothing rater B can open shows them."""
    from annotator.services.annotations import annotation_submit
    from tests.annotator.studies.conftest import complete_input

    annotation_submit(
        annotation=world.a.annotation,
        actor=users["rater_a"],
        data=complete_input(world, note="SECRET-NOTE-A", proposals={"stage": "SECRET-PROPOSAL-A"}),
        expected_version=1,
    )
    client = client_for("rater_b")
    api = APIClient()
    api.force_authenticate(users["rater_b"])
    bodies = [
        client.get(url).content.decode()
        for url in (
            "/studies/",
            f"/studies/{world.study.pk}/",
            f"/studies/{world.study.pk}/queue/",
            f"/studies/{world.study.pk}/label/{world.b.pk}/",
        )
    ]
    bodies += [
        api.get(url).content.decode()
        for url in (
            f"/api/v1/studies/{world.study.pk}/assignments/next/",
            f"/api/v1/studies/{world.study.pk}/assignments/mine/",
            f"/api/v1/annotations/{world.b.annotation.pk}/",
        )
    ]
    for body in bodies:
        assert "SECRET-NOTE-A" not in body and "SECRET-PROPOSAL-A" not in body
    owner_page = client_for("owner").get(f"/studies/{world.study.pk}/").content.decode()
    assert "SECRET-PROPOSAL-A" in owner_page
