"""Fixtures for the agreement tests: an outsider, a client per role, and a clean cache per test."""

import pytest
from django.core.cache import cache
from django.test import Client

from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def outsider(db):
    return UserFactory(username="outsider")


@pytest.fixture
def client_for(client_as, outsider):
    """client_as(role) plus "outsider": signed in, but not a member of the study."""

    def make(role: str) -> Client:
        if role == "outsider":
            c = Client()
            c.force_login(outsider)
            return c
        return client_as(role)

    return make
