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
    from tests.annotator.factories_issues import IssueFactory

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
    from tests.annotator.worlds import complete_input

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


# --- progress counts: raters of a blind study see only their own -----------------------------------------


def _api(users, outsider, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(outsider if role == "outsider" else users[role])
    return client


def _labelled(world, users, *, b_agrees: bool) -> None:
    """Issue 0: both raters submit (rater B agreeing with rater A or not); issue 1: only rater A submits."""
    from annotator.services.annotations import AnnotationInput, annotation_submit

    def values(symptom: int) -> dict:
        return {"symptom": [world.cats["symptom"][symptom].pk], "root_cause": [world.cats["root_cause"][0].pk]}

    for role, assignment, symptom in (
        ("rater_a", world.assignments["rater_a"][0], 0),
        ("rater_b", world.assignments["rater_b"][0], 0 if b_agrees else 1),
        ("rater_a", world.assignments["rater_a"][1], 0),
    ):
        annotation_submit(
            annotation=assignment.annotation,
            actor=users[role],
            data=AnnotationInput(values=values(symptom)),
            expected_version=1,
        )


PROGRESS_STATUS = {
    "anonymous": 401,
    "outsider": 404,
    "rater_a": 200,
    "rater_b": 200,
    "adjudicator": 200,
    "owner": 200,
    "staff": 200,
}


@pytest.mark.parametrize("b_agrees", [True, False], ids=["agreed", "disagreed"])
@pytest.mark.parametrize("role", ROLES)
def test_study_progress_tells_a_rater_of_a_blind_study_only_their_own(world, users, outsider, role, b_agrees):
    _labelled(world, users, b_agrees=b_agrees)
    before = snapshot()
    response = _api(users, outsider, role).get(f"/api/v1/studies/{world.study.pk}/")
    assert response.status_code == PROGRESS_STATUS[role], response.content
    assert snapshot() == before
    if response.status_code != 200:
        assert "progress" not in response.content.decode()
        return
    progress = response.json()["progress"]
    mine = {"scope": "mine", "issues": 5, "assignments": 5, "skipped": 0, "resolved": None, "pending": None}
    expected = {
        # The same whether or not rater B agreed: nothing in it depends on the other rater.
        "rater_a": {**mine, "submitted": 2},
        "rater_b": {**mine, "submitted": 1},
    }
    whole = {
        "scope": "study",
        "issues": 5,
        "assignments": 10,
        "submitted": 3,
        "skipped": 0,
        "resolved": 1 if b_agrees else 0,
        "pending": 0 if b_agrees else 1,
    }
    assert progress == expected.get(role, whole)


@pytest.mark.parametrize("role", ["rater_a", "rater_b"])
def test_study_list_progress_of_a_blind_study_is_the_raters_own(world, users, outsider, role):
    _labelled(world, users, b_agrees=False)
    rows = _api(users, outsider, role).get("/api/v1/studies/").json()["results"]
    (row,) = [row for row in rows if row["id"] == world.study.pk]
    assert row["progress"]["scope"] == "mine"
    assert row["progress"]["resolved"] is None and row["progress"]["pending"] is None


def test_a_rater_of_a_study_that_is_not_blind_sees_the_whole_studys_progress(world, users, outsider):
    Study.objects.filter(pk=world.study.pk).update(blind=False)
    _labelled(world, users, b_agrees=False)
    progress = _api(users, outsider, "rater_a").get(f"/api/v1/studies/{world.study.pk}/").json()["progress"]
    assert progress["scope"] == "study" and progress["pending"] == 1


# --- anonymous adjudication: the raters' identities stay hidden from the adjudicator everywhere -----------

NAMES = ("rater_a", "rater_b")


@pytest.fixture
def anonymous(world, users):
    """An anonymous-adjudication study whose issue 0 is disputed (both raters submitted, labels differ)."""
    Study.objects.filter(pk=world.study.pk).update(anonymous_adjudication=True)
    world.study.refresh_from_db()
    _labelled(world, users, b_agrees=False)
    return world


def _anonymous_urls(world) -> dict[str, str]:
    study_issue = world.a.study_issue_id
    return {
        "study page": f"/studies/{world.study.pk}/",
        "adjudication queue": f"/studies/{world.study.pk}/adjudication/?status=all",
        "adjudication page": f"/studies/{world.study.pk}/adjudication/{study_issue}/",
        "history page": f"/studies/{world.study.pk}/issues/{study_issue}/history/",
        "study API": f"/api/v1/studies/{world.study.pk}/",
        "annotation API": f"/api/v1/annotations/{world.a.annotation.pk}/",
        "resolutions API": f"/api/v1/studies/{world.study.pk}/resolutions/?status=all",
        "resolution API": f"/api/v1/study-issues/{study_issue}/resolution/",
    }


ANONYMOUS_STATUS = {
    # surface: (adjudicator, owner)
    "study page": (200, 200),
    "adjudication queue": (200, 200),
    "adjudication page": (200, 200),
    "history page": (200, 200),
    "study API": (200, 200),
    "annotation API": (200, 200),
    "resolutions API": (200, 200),
    "resolution API": (200, 200),
}


@pytest.mark.parametrize("surface", list(ANONYMOUS_STATUS))
def test_anonymous_adjudication_hides_the_raters_from_the_adjudicator(anonymous, users, client_for, surface):
    url = _anonymous_urls(anonymous)[surface]
    client = client_for("adjudicator")
    before = snapshot()
    response = client.get(url)
    assert response.status_code == ANONYMOUS_STATUS[surface][0], response.content[:300]
    assert snapshot() == before
    body = response.content.decode()
    for name in NAMES:
        assert name not in body, f"{surface} shows {name} to the adjudicator"
    if surface not in ("study API",):
        assert "R1" in body or "R2" in body, f"{surface} shows no pseudonym"


@pytest.mark.parametrize("surface", list(ANONYMOUS_STATUS))
def test_anonymous_adjudication_still_shows_the_owner_the_names(anonymous, users, client_for, surface):
    response = client_for("owner").get(_anonymous_urls(anonymous)[surface])
    assert response.status_code == ANONYMOUS_STATUS[surface][1]
    assert "rater_a" in response.content.decode()


def test_anonymous_pseudonyms_are_stable_across_surfaces(anonymous, users, client_for):
    """R1 is rater A (who joined first) on the annotation API, in the resolution's record and in the members."""
    client = client_for("adjudicator")
    annotation = client.get(f"/api/v1/annotations/{anonymous.a.annotation.pk}/").json()
    other = client.get(f"/api/v1/annotations/{anonymous.b.annotation.pk}/").json()
    assert (annotation["rater"], other["rater"]) == ("R1", "R2")
    resolution = client.get(f"/api/v1/study-issues/{anonymous.a.study_issue_id}/resolution/").json()
    assert [entry["rater"] for entry in resolution["independent"]] == ["R1", "R2"]
    members = client.get(f"/api/v1/studies/{anonymous.study.pk}/").json()["members"]
    assert sorted(m["name"] for m in members if m["role"] == "rater") == ["R1", "R2"]


def test_a_rater_still_sees_their_own_name_on_their_annotation(anonymous, users, client_for):
    body = client_for("rater_a").get(f"/api/v1/annotations/{anonymous.a.annotation.pk}/").json()
    assert body["rater"] == "rater_a"
    assert client_for("rater_b").get(f"/api/v1/annotations/{anonymous.a.annotation.pk}/").status_code == 404
