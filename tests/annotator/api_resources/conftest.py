"""A study world for the resource API: roles, an outsider, API clients and a way to finish labelling."""

import pytest

from annotator.models import Annotation
from annotator.services.annotations import AnnotationInput, annotation_submit
from tests.annotator.worlds import build_world

ROLES = ("anonymous", "rater_a", "rater_b", "adjudicator", "owner", "staff", "outsider")


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Throttle counters and cached agreement reports live in the cache: no test may see another's."""


@pytest.fixture
def world(users, outsider):
    return build_world(users)


def submit(world, users, role: str, index: int, *, symptom: int = 0, root_cause: int = 0) -> Annotation:
    assignment = world.assignments[role][index]
    annotation = Annotation.objects.get(assignment=assignment)
    values = {"symptom": [world.cats["symptom"][symptom].pk], "root_cause": [world.cats["root_cause"][root_cause].pk]}
    return annotation_submit(
        annotation=annotation,
        actor=users[role],
        data=AnnotationInput(values=values, note=f"note by {role}"),
        expected_version=annotation.version,
    )


def label_everything(world, users) -> None:
    """Both raters submit the same labels on every issue: every issue gets a unanimous final label."""
    for index in range(len(world.assignments["rater_a"])):
        submit(world, users, "rater_a", index, root_cause=index % 2)
        submit(world, users, "rater_b", index, root_cause=index % 2)


@pytest.fixture
def labelled(world, users):
    label_everything(world, users)
    return world


@pytest.fixture
def published(labelled, users):
    from annotator.services.publication import study_publish

    study_publish(study=labelled.study, actor=users["owner"])
    labelled.study.refresh_from_db()
    return labelled


@pytest.fixture
def client_for_pages(users, outsider):
    """A logged-in Django test client per role (for the HTML pages), "anonymous" logged out."""
    from django.test import Client

    def make(role: str) -> Client:
        client = Client()
        if role == "outsider":
            client.force_login(outsider)
        elif role != "anonymous":
            client.force_login(users[role])
        return client

    return make
