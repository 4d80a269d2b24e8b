"""A labelled study: both raters submitted every issue, disagreements adjudicated, one title a formula."""

import pytest

from tests.annotator.worlds import labelled_world


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Reports and exports are cached: every test here starts and ends with an empty cache."""


@pytest.fixture
def world(users, outsider):
    return labelled_world(users)
