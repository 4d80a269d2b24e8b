"""A labelled study on a published v1: raters A and B have submitted every issue (stage left to some)."""

import pytest
from django.test import Client

from annotator.services.annotations import AnnotationInput, annotation_submit
from taxonomy.services import version_publish
from tests.annotator.studies.conftest import build_world
from tests.factories import UserFactory, make_taxonomy_maintainer


def label_all(world, users) -> None:
    """Issue i: symptom leaf i % 3 for both raters; root cause leaf 1 (A) / leaf i % 2 (B); stage leaves 0+1 for A."""
    cats = world.cats
    for role in ("rater_a", "rater_b"):
        for i, assignment in enumerate(world.assignments[role]):
            cause = 1 if role == "rater_a" else i % 2
            values = {"symptom": [cats["symptom"][i % 3].pk], "root_cause": [cats["root_cause"][cause].pk]}
            if role == "rater_a":
                values["stage"] = [cats["stage"][0].pk, cats["stage"][1].pk]
            annotation = assignment.annotation
            annotation.refresh_from_db()
            annotation_submit(
                annotation=annotation,
                actor=users[role],
                data=AnnotationInput(values=values, proposals={"symptom": f"NCCL timeout {i % 2}"}),
                expected_version=annotation.version,
            )


@pytest.fixture
def outsider(db):
    return UserFactory(username="outsider")


@pytest.fixture
def world(users, outsider):
    # The owner here also maintains the taxonomy: card sorting and drafts change it.
    make_taxonomy_maintainer(users["owner"])
    world = build_world(users)
    version_publish(version=world.study.taxonomy_version)
    label_all(world, users)
    return world


@pytest.fixture
def client_for(client_as, outsider):
    def make(role: str):
        if role == "outsider":
            c = Client()
            c.force_login(outsider)
            return c
        return client_as(role)

    return make
