"""The findings tests' world: the labelled study of the report tests, whose issues got fixes with fix details."""

import pytest


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Reports and exports are cached: every test here starts and ends with an empty cache."""


@pytest.fixture
def fixed_world(users, outsider):
    from tests.annotator.worlds import fixed_world

    return fixed_world(users)
