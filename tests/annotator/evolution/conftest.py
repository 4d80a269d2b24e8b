"""A labelled study on a published v1: raters A and B have submitted every issue (stage left to some)."""

import pytest

from taxonomy.services import version_publish
from tests.annotator.worlds import build_world, label_all
from tests.factories import make_taxonomy_maintainer


@pytest.fixture
def world(users, outsider):
    # The owner here also maintains the taxonomy: card sorting and drafts change it.
    make_taxonomy_maintainer(users["owner"])
    world = build_world(users)
    version_publish(version=world.study.taxonomy_version)
    label_all(world, users)
    return world
