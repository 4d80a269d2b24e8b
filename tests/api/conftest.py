"""The resource API's study world for the API-wide tests here (the clients: `api_as` in tests/conftest.py)."""

import pytest

from tests.annotator.worlds import build_world


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Throttle counters and cached agreement reports live in the cache: no test may see another's."""


@pytest.fixture
def world(users, outsider):
    return build_world(users)
