"""Fixtures shared by the whole suite: users per role and a client logged in as one of them."""

import os

import pytest
from django.db import connection


def pytest_sessionstart(session: pytest.Session) -> None:
    # CI sets REQUIRE_POSTGRES: a suite that quietly fell back to SQLite would prove nothing there.
    if os.environ.get("REQUIRE_POSTGRES") and connection.vendor != "postgresql":
        raise pytest.UsageError(f"REQUIRE_POSTGRES is set but the database is {connection.vendor}")


ROLES = ("owner", "rater_a", "rater_b", "adjudicator", "staff")
# A real Redis for the tests that need one (cache backend, Celery broker); CI sets REQUIRE_REDIS.
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def redis_or_skip(url: str = TEST_REDIS_URL) -> None:
    """Skip the test when Redis is not reachable, or fail it when REQUIRE_REDIS=1."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        message = f"Redis is not reachable at {url} ({exc}); start redis-server or set TEST_REDIS_URL"
        if os.environ.get("REQUIRE_REDIS") == "1":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def users(db) -> dict:
    from tests.factories import UserFactory  # here, not at the top: pure test folders run without Django

    return {
        "owner": UserFactory(username="owner"),
        "rater_a": UserFactory(username="rater_a"),
        "rater_b": UserFactory(username="rater_b"),
        "adjudicator": UserFactory(username="adjudicator"),
        "staff": UserFactory(username="staff", is_staff=True, is_superuser=True),
    }


@pytest.fixture
def client_as(client, users):
    """client_as("rater_a") -> a Django test client logged in as that role; "anonymous" stays logged out."""

    def make(role: str):
        from django.test import Client

        c = Client()
        if role != "anonymous":
            c.force_login(users[role])
        return c

    return make


@pytest.fixture(autouse=True)
def _fresh_taxonomy_catalogue():
    """Each test starts without cached taxonomy catalogues (ids are reused across rolled-back tests)."""
    from taxonomy.catalogue import version_catalogue_clear

    version_catalogue_clear()
    yield
