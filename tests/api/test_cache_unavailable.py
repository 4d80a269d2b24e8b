"""With the shared Redis cache unreachable (it holds the sessions and the API throttles), a request answers
503 "try again" with Retry-After, never the 500 of a bug, and changes nothing: on the API with its error body,
on a page with the 503 page, and also when the cache fails outside any view (a sign-in saving its session).

The cache is real: django-redis, as production configures it, pointed at a port of 127.0.0.1 where nothing
listens, so every connection is refused at once.
"""

import time

import pytest
from django.test import Client

from annotator.models import Annotation

DEAD_CACHE = {
    "default": {
        "BACKEND": "core.cache.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
    }
}


@pytest.fixture
def signed_in(settings, world, users):
    """Rater A signed in with sessions read through the cache (as with CACHE_URL), before the cache goes away."""
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    client = Client(raise_request_exception=False)
    client.force_login(users["rater_a"])
    settings.CACHES = DEAD_CACHE
    return client


def _snapshot(world) -> tuple:
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    return annotation.version, annotation.note, annotation.updated_at


def test_an_autosave_answers_503_with_the_error_body_and_saves_nothing(signed_in, world):
    before = _snapshot(world)
    started = time.monotonic()
    response = signed_in.put(
        f"/api/v1/annotations/{world.a.annotation.pk}/draft/",
        {"version": 1, "note": "x"},
        content_type="application/json",
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    error = response.json()["error"]
    assert error["code"] == "unavailable" and "cache (Redis) cannot be reached" in error["message"]
    assert _snapshot(world) == before
    assert time.monotonic() - started < 10  # refused, not waited out


def test_a_page_answers_the_503_page(signed_in, world):
    response = signed_in.get(f"/studies/{world.study.pk}/queue/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    html = response.content.decode()
    assert 'data-testid="error-page"' in html and "The service's cache cannot be reached" in html
    assert "What you saved before is kept" in html


def test_signing_in_answers_503_not_500(settings, world, users):
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.CACHES = DEAD_CACHE
    users["rater_a"].set_password("a-long-password-1")
    users["rater_a"].save()
    client = Client(raise_request_exception=False)
    response = client.post("/accounts/login/", {"username": "rater_a", "password": "a-long-password-1"})
    assert response.status_code == 503 and response["Retry-After"] == "5"


def test_the_api_index_answers_503_under_the_api_prefix_with_json(signed_in):
    response = signed_in.get("/api/v1/")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
