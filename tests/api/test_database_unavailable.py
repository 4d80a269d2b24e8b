"""A request the database fails (busy past the timeout, or unreachable) answers 503 "try again", says nothing
was saved, and changes nothing: on the API with its error body, on a page with the error page."""

import pytest
from django.db import OperationalError, connection

from annotator.models import Annotation


def _snapshot(world) -> tuple:
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    return annotation.version, annotation.note, annotation.updated_at


def _failing(*args, **kwargs):
    raise OperationalError("database is locked")


def test_an_autosave_the_database_fails_answers_503_with_the_error_body(world, api_as, monkeypatch):
    monkeypatch.setattr("annotator.api.views.annotation_save_draft", _failing)
    before = _snapshot(world)
    response = api_as("rater_a").put(
        f"/api/v1/annotations/{world.a.annotation.pk}/draft/", {"version": 1, "note": "x"}, format="json"
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["error"]["code"] == "unavailable" and "nothing was saved" in body["error"]["message"]
    assert _snapshot(world) == before


def test_a_page_the_database_fails_answers_the_503_page(world, client_as, monkeypatch):
    monkeypatch.setattr("annotator.views.labelling.rater_queue", _failing)
    response = client_as("rater_a").get(f"/studies/{world.study.pk}/queue/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    html = response.content.decode()
    assert 'data-testid="error-page"' in html and "The database is busy" in html
    assert "Nothing was saved by this request" in html


def test_other_errors_still_answer_500(world, client_as, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("annotator.views.labelling.rater_queue", broken)
    client = client_as("rater_a")
    client.raise_request_exception = False
    assert client.get(f"/studies/{world.study.pk}/queue/").status_code == 500


@pytest.mark.django_db(transaction=True)
def test_a_writer_queued_past_the_timeout_on_sqlite_gets_503_and_writes_nothing(users, outsider, monkeypatch):
    if connection.vendor != "sqlite":
        pytest.skip("the writer queue is the embedded SQLite engine's")
    from core.sqlite.base import writer_lock
    from tests.annotator.worlds import build_world

    world = build_world(users)
    before = _snapshot(world)
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.2)
    lock = writer_lock(connection.settings_dict["NAME"])
    assert lock.acquire(timeout=5)  # another writer of this process holds the database
    try:
        from rest_framework.test import APIClient

        client = APIClient()
        client.force_authenticate(users["rater_a"])
        response = client.put(
            f"/api/v1/annotations/{world.a.annotation.pk}/draft/", {"version": 1, "note": "x"}, format="json"
        )
    finally:
        lock.release()
    assert response.status_code == 503 and response.json()["error"]["code"] == "unavailable"
    assert _snapshot(world) == before
