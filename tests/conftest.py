"""Fixtures shared by the whole suite: users per role and a client logged in as one of them."""

import os

import pytest
from django.db import connection


def pytest_sessionstart(session: pytest.Session) -> None:
    # CI sets REQUIRE_POSTGRES: a suite that quietly fell back to SQLite would prove nothing there.
    if os.environ.get("REQUIRE_POSTGRES") and connection.vendor != "postgresql":
        raise pytest.UsageError(f"REQUIRE_POSTGRES is set but the database is {connection.vendor}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Tests marked `redis` or `celery_worker` (or using the real Redis broker) share one Redis database and some
    # empty it: under `pytest -n N --dist loadgroup` they run one after the other on a single worker.
    for item in items:
        shares_redis = item.get_closest_marker("redis") or item.get_closest_marker("celery_worker")
        if shares_redis or "redis_broker" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("redis"))


ROLES = ("owner", "rater_a", "rater_b", "adjudicator", "staff")


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


@pytest.fixture
def outsider(db):
    """A signed-in user who is not a member of any study."""
    from tests.factories import UserFactory

    return UserFactory(username="outsider")


@pytest.fixture
def client_for(client_as, outsider):
    """Like client_as, plus "outsider"."""
    from django.test import Client

    def make(role: str):
        if role == "outsider":
            c = Client()
            c.force_login(outsider)
            return c
        return client_as(role)

    return make


@pytest.fixture
def api_as(users, outsider):
    """api_as("rater_a") -> an APIClient authenticated as that role; "anonymous" stays anonymous."""

    from rest_framework.test import APIClient

    def make(role: str):
        client = APIClient()
        if role == "outsider":
            client.force_authenticate(outsider)
        elif role != "anonymous":
            client.force_authenticate(users[role])
        return client

    return make


@pytest.fixture
def empty_cache():
    """The default cache emptied before and after the test (cached reports, throttle counters)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _fresh_taxonomy_catalogue():
    """Each test starts without cached taxonomy catalogues (ids are reused across rolled-back tests)."""
    from taxonomy.catalogue import version_catalogue_clear

    version_catalogue_clear()
    yield
