import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import AnnotationValue


@pytest.fixture
def api_as(users, outsider):
    def make(role: str) -> APIClient:
        client = APIClient()
        if role != "anonymous":
            client.force_authenticate(outsider if role == "outsider" else users[role])
        return client

    return make


def _body(world, version, **extra):
    return {
        "values": {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]},
        "version": version,
        **extra,
    }


def test_next_returns_my_first_assignment_and_progress(world, api_as):
    response = api_as("rater_a").get(f"/api/v1/studies/{world.study.pk}/assignments/next/")
    assert response.status_code == 200
    data = response.json()
    assert data["assignment"]["id"] == world.a.pk
    assert data["assignment"]["annotation"] == world.a.annotation.pk
    assert data["assignment"]["page_url"] == f"/studies/{world.study.pk}/label/{world.a.pk}/"
    assert data["progress"] == {"round": 1, "done": 0, "skipped": 0, "total": 5}


def test_next_is_null_when_the_queue_is_empty(world, api_as):
    response = api_as("owner").get(f"/api/v1/studies/{world.study.pk}/assignments/next/")
    assert response.status_code == 200 and response.json() == {"assignment": None, "progress": None}


def test_mine_lists_only_my_assignments(world, api_as):
    data = api_as("rater_b").get(f"/api/v1/studies/{world.study.pk}/assignments/mine/").json()
    assert data["count"] == 5
    assert {row["id"] for row in data["results"]} == {a.pk for a in world.assignments["rater_b"]}


def test_draft_then_submit_through_the_api(world, api_as):
    client = api_as("rater_a")
    url = f"/api/v1/annotations/{world.a.annotation.pk}/"
    draft = client.put(url + "draft/", {"note": "hmm", "version": 1, "elapsed_seconds": 12}, format="json")
    assert draft.status_code == 200, draft.json()
    assert (draft.json()["version"], draft.json()["note"], draft.json()["time_spent_seconds"]) == (2, "hmm", 12)
    submitted = client.post(url + "submit/", _body(world, 2, confidence=3), format="json")
    assert submitted.status_code == 200, submitted.json()
    assert submitted.json()["status"] == "submitted" and submitted.json()["confidence"] == 3
    assert client.get(url).json()["values"]["root_cause"] == [world.cats["root_cause"][0].pk]


def test_a_stale_version_answers_409_with_a_message_a_person_can_act_on(world, api_as):
    client = api_as("rater_a")
    url = f"/api/v1/annotations/{world.a.annotation.pk}/draft/"
    assert client.put(url, {"note": "first tab", "version": 1}, format="json").status_code == 200
    response = client.put(url, {"note": "second tab", "version": 1}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["message"] == (
        "This annotation was changed in another tab or window; reload to see the latest version."
    )
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.note == "first tab"


def test_submitting_without_required_dimensions_answers_400(world, api_as):
    response = api_as("rater_a").post(
        f"/api/v1/annotations/{world.a.annotation.pk}/submit/", {"version": 1}, format="json"
    )
    assert response.status_code == 400
    assert "Choose a category for Symptom, Root Cause" in response.json()["error"]["message"]
    assert not AnnotationValue.objects.exists()


@pytest.mark.parametrize(("method", "suffix"), [("put", "draft/"), ("post", "submit/")])
def test_a_category_and_a_proposal_in_one_single_valued_dimension_answer_400(world, api_as, method, suffix):
    body = _body(world, 1, proposals={"symptom": "NCCL watchdog timeout"})
    response = getattr(api_as("rater_a"), method)(
        f"/api/v1/annotations/{world.a.annotation.pk}/{suffix}", body, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("'Symptom' takes a single category") and "not both" in error["message"]
    assert "proposals" in error["fields"]
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.version == 1 and world.a.annotation.proposals == {}
    assert not AnnotationValue.objects.exists()


def test_invalid_input_answers_400_with_fields(world, api_as):
    response = api_as("rater_a").put(
        f"/api/v1/annotations/{world.a.annotation.pk}/draft/", {"confidence": 7}, format="json"
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"confidence", "version"}


def test_the_owner_reads_but_cannot_write_a_raters_annotation(world, api_as):
    client = api_as("owner")
    url = f"/api/v1/annotations/{world.a.annotation.pk}/"
    assert client.get(url).status_code == 200
    assert client.put(url + "draft/", {"note": "owner", "version": 1}, format="json").status_code == 403
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.note == "" and world.a.annotation.version == 1


def test_token_authentication_works(world, users):
    token = Token.objects.create(user=users["rater_a"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(f"/api/v1/studies/{world.study.pk}/assignments/next/").status_code == 200


def test_session_writes_need_the_csrf_token(world, users):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(users["rater_a"])
    response = client.put(
        f"/api/v1/annotations/{world.a.annotation.pk}/draft/", {"note": "x", "version": 1}, format="json"
    )
    assert response.status_code == 403
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.version == 1


def test_the_schema_documents_the_rater_flow(db, client_as):
    response = client_as("rater_a").get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    text = response.content.decode()
    for path in (
        "/api/v1/studies/{id}/assignments/next/",
        "/api/v1/studies/{id}/assignments/mine/",
        "/api/v1/annotations/{id}/draft/",
        "/api/v1/annotations/{id}/submit/",
    ):
        assert path in text
    for component in ("AnnotationDraftInput", "AnnotationOutput", "RaterNextAssignmentOutput"):
        assert component in text


def test_the_save_answer_is_what_the_output_serializer_gives(world, api_as):
    from annotator.api.serializers import AnnotationOutputSerializer
    from annotator.models import Annotation

    client = api_as("rater_a")
    url = f"/api/v1/annotations/{world.a.annotation.pk}/"
    extra = {"note": "née ünïcode", "proposals": {"stage": "Silent hang"}, "confidence": 2}
    for method, suffix, version in [("put", "draft/", 1), ("post", "submit/", 2)]:
        answer = getattr(client, method)(url + suffix, _body(world, version, **extra), format="json")
        assert answer.status_code == 200, answer.content
        stored = Annotation.objects.select_related("assignment__study_issue", "assignment__rater").get(
            pk=world.a.annotation.pk
        )
        assert answer.json() == AnnotationOutputSerializer(stored).data


@pytest.mark.parametrize(
    ("method", "suffix"), [("get", ""), ("put", "draft/"), ("post", "submit/")], ids=["read", "draft", "submit"]
)
def test_an_annotation_id_beyond_the_database_integers_is_not_found(world, api_as, method, suffix):
    too_big = 10**20  # a 20-digit id: more than any integer column holds
    url = f"/api/v1/annotations/{too_big}/{suffix}"
    response = getattr(api_as("rater_a"), method)(url, _body(world, 1), format="json")
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not_found"
