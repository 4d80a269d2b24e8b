"""A labelled study on a published v1: raters A and B have submitted every issue (stage left to some)."""

import pytest

from taxonomy.services import version_publish
from tests.annotator.worlds import build_world, label_all
from tests.factories import make_taxonomy_maintainer


def evolution_world(users, *, proposals: bool = False):
    # The owner here also maintains the taxonomy: card sorting and drafts change it.
    make_taxonomy_maintainer(users["owner"])
    world = build_world(users)
    version_publish(version=world.study.taxonomy_version)
    label_all(world, users, proposals=proposals)
    return world


@pytest.fixture
def world(users, outsider):
    return evolution_world(users)


@pytest.fixture
def proposing_world(users, outsider):
    """The same study, where both raters also proposed "NCCL timeout {i % 2}" for the stage of issue i."""
    return evolution_world(users, proposals=True)
