"""Fixtures shared by the whole suite: users per role and a client logged in as one of them."""

import os

import pytest
from django.db import connection


def pytest_sessionstart(session: pytest.Session) -> None:
    # CI sets REQUIRE_POSTGRES: a suite that quietly fell back to SQLite would prove nothing there.
    if os.environ.get("REQUIRE_POSTGRES") and connection.vendor != "postgresql":
        raise pytest.UsageError(f"REQUIRE_POSTGRES is set but the database is {connection.vendor}")


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
