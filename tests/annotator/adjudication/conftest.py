"""The study world of the labelling tests, plus helpers that bring issues to the adjudication queue."""

import pytest

from annotator.services.annotations import AnnotationInput, annotation_submit
from tests.annotator.studies.conftest import build_world, client_for, outsider  # noqa: F401 - fixtures
from tests.factories import UserFactory


def submit(world, users, role: str, index: int = 0, **data):
    """Submit rater `role`'s annotation of the world's `index`-th issue (in their queue order)."""
    assignment = next(a for a in world.assignments[role] if a.study_issue_id == world.issue_ids[index])
    annotation = assignment.annotation
    annotation.refresh_from_db()
    return annotation_submit(
        annotation=annotation, actor=users[role], data=AnnotationInput(**data), expected_version=annotation.version
    )


def labels(world, symptom: int, root_cause: int, stage: list[int] | None = None) -> dict:
    values = {"symptom": [world.cats["symptom"][symptom].pk], "root_cause": [world.cats["root_cause"][root_cause].pk]}
    if stage is not None:
        values["stage"] = [world.cats["stage"][i].pk for i in stage]
    return {"values": values}


def make_world(users, n_issues: int = 3):
    world = build_world(users, n_issues=n_issues)
    # Both raters of a balanced two-rater study share every issue; index issues by queue position.
    world.issue_ids = [a.study_issue_id for a in world.assignments["rater_a"]]
    return world


@pytest.fixture
def world(users, outsider):  # noqa: F811 - replaces the labelling tests' world with one that has issue_ids
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
