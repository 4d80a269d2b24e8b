"""With the shared Redis cache unreachable (it holds the sessions and the API throttles), a request answers
503 "try again" with Retry-After, never the 500 of a bug, and changes nothing: on the API with its error body,
on a page with the 503 page, and also when the cache fails outside any view (a sign-in saving its session).

The cache is real: django-redis with production's options (settings.REDIS_CACHE_OPTIONS), pointed at a port of
127.0.0.1 where nothing listens, so every connection is refused at once; or at a server that accepts and never
answers, which production's read timeout must cut short.
"""

import socket
import threading
import time

import pytest
from django.conf import settings as django_settings
from django.test import Client

from annotator.models import Annotation


def _redis_cache_at(url: str) -> dict:
    return {
        "default": {"BACKEND": "core.cache.RedisCache", "LOCATION": url, "OPTIONS": django_settings.REDIS_CACHE_OPTIONS}
    }


DEAD_CACHE = _redis_cache_at("redis://127.0.0.1:1/0")


def _signed_in_then_cache_lost(settings, users, caches: dict) -> Client:
    """Rater A signed in with sessions read through the cache (as with CACHE_URL); then the cache is `caches`."""
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    client = Client(raise_request_exception=False)
    client.force_login(users["rater_a"])
    settings.CACHES = caches
    return client


@pytest.fixture
def signed_in(settings, world, users):
    return _signed_in_then_cache_lost(settings, users, DEAD_CACHE)


def _snapshot(world) -> tuple:
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    return annotation.version, annotation.note, annotation.updated_at


def _autosave(client: Client, world):
    return client.put(
        f"/api/v1/annotations/{world.a.annotation.pk}/draft/",
        {"version": 1, "note": "x"},
        content_type="application/json",
    )


def test_an_autosave_answers_503_with_the_error_body_and_saves_nothing(signed_in, world):
    before = _snapshot(world)
    started = time.monotonic()
    response = _autosave(signed_in, world)
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


@pytest.fixture
def silent_redis():
    """A server on 127.0.0.1 that accepts connections and never answers (a hung Redis)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def accept() -> None:
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    server.close()
    for connection in accepted:
        connection.close()


def test_a_hung_cache_is_answered_503_within_the_read_timeout(settings, world, users, silent_redis):
    client = _signed_in_then_cache_lost(settings, users, _redis_cache_at(silent_redis))
    before = _snapshot(world)
    started = time.monotonic()
    response = _autosave(client, world)
    elapsed = time.monotonic() - started
    assert response.status_code == 503 and response.json()["error"]["code"] == "unavailable"
    timeout = django_settings.REDIS_CACHE_OPTIONS["SOCKET_TIMEOUT"]
    assert timeout <= elapsed < 2 * timeout + 1, elapsed  # one read timed out, no retries stacked on it
    assert _snapshot(world) == before
