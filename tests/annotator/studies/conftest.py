"""The labelling tests' world: owner, raters A and B, an adjudicator, and five issues drawn into a round."""

import pytest

from tests.annotator.worlds import build_world


@pytest.fixture
def world(users, outsider):
    return build_world(users)
