"""The report tests' world: the labelled study of the export tests (tests.annotator.worlds.labelled_world)."""

import pytest

from tests.annotator.worlds import labelled_world


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Reports and exports are cached: every test here starts and ends with an empty cache."""


@pytest.fixture
def world(users, outsider):
    return labelled_world(users)
