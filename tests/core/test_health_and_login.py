import pytest
from django.db import DatabaseError


@pytest.mark.django_db
def test_healthz_answers_200_when_the_database_is_reachable(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


DRIVER_MESSAGE = (
    'connection to server at "db-primary.internal" (10.20.30.40), port 5433 failed: '
    'FATAL: password authentication failed for user "taxonomist_prod"'
)


def test_healthz_answers_503_when_the_database_is_down(db, client, monkeypatch, caplog):
    from core import views

    class Unreachable:
        def cursor(self):
            raise DatabaseError(DRIVER_MESSAGE)

    monkeypatch.setattr(views, "connection", Unreachable())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unavailable"}
    for secret in ("db-primary.internal", "10.20.30.40", "5433", "taxonomist_prod", "FATAL"):
        assert secret not in response.content.decode(), f"the 503 reveals {secret!r}"
    assert "db-primary.internal" in caplog.text, "the operator finds the cause in the log"


@pytest.mark.django_db
def test_pages_carry_a_strict_content_security_policy(client_as):
    response = client_as("rater_a").get("/issues/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]


@pytest.mark.django_db
def test_home_requires_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")


@pytest.mark.django_db
def test_healthz_answers_probes_by_address_whatever_allowed_hosts_says(client, settings):
    # docker-compose's healthcheck asks http://127.0.0.1:8000/healthz of a site whose ALLOWED_HOSTS names only
    # its public host, and over plain HTTP behind the TLS proxy.
    settings.ALLOWED_HOSTS = ["taxonomist.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/healthz", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert client.get("/accounts/login/", HTTP_HOST="127.0.0.1:8000").status_code == 400  # pages still check it
