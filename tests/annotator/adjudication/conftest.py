"""The adjudication tests' world: the labelling world with its issues indexed by queue position."""

import pytest

from tests.annotator.worlds import labels, make_world, submit
from tests.factories import UserFactory


@pytest.fixture
def world(users, outsider):
    return make_world(users)


@pytest.fixture
def disputed(world, users):
    """Issue 0: the raters agree on symptom, differ on root cause. Returns its study issue."""
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    return world.a.study_issue.__class__.objects.get(pk=world.issue_ids[0])


@pytest.fixture
def staff_member(db):
    """Staff without superuser rights: what a typical admin reviewer has."""
    return UserFactory(username="reviewer", is_staff=True)
