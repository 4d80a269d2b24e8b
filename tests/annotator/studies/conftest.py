"""A study world: owner, raters A and B, an adjudicator, an outsider, and issues drawn into a round."""

from types import SimpleNamespace

import pytest

from annotator.models import Assignment
from tests.annotator.studies.factories import IssueFactory, RepositoryFactory, draw, make_study, make_taxonomy
from tests.factories import UserFactory


def build_world(users, *, n_issues: int = 5, comments: int = 0) -> SimpleNamespace:
    from tests.annotator.studies.factories import CommentFactory

    taxonomy = make_taxonomy()
    repo = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    issues = [IssueFactory(repository=repo) for _ in range(n_issues)]
    for issue in issues:
        for _ in range(comments):
            CommentFactory(issue=issue)
    study = make_study(
        owner=users["owner"],
        raters=[users["rater_a"], users["rater_b"]],
        adjudicators=[users["adjudicator"]],
        taxonomy=taxonomy,
        name="Distributed training bugs",
        guidelines="# Guidelines\n\nLabel the **root cause**.",
    )
    study_round = draw(study, actor=users["owner"], size=n_issues, seed=7)
    assignments = {
        role: list(
            Assignment.objects.filter(rater=users[role], study_issue__study=study)
            .select_related("annotation", "study_issue")
            .order_by("study_issue__position")
        )
        for role in ("rater_a", "rater_b")
    }
    return SimpleNamespace(
        study=study,
        round=study_round,
        taxonomy=taxonomy,
        dims=taxonomy["dims"],
        cats=taxonomy["cats"],
        issues=issues,
        repo=repo,
        assignments=assignments,
        a=assignments["rater_a"][0],
        b=assignments["rater_b"][0],
    )


@pytest.fixture
def outsider(db):
    return UserFactory(username="outsider")


@pytest.fixture
def world(users, outsider):
    return build_world(users)


@pytest.fixture
def client_for(client_as, outsider):
    """Like client_as, plus "outsider" (a signed-in user who is not a member of the study)."""
    from django.test import Client

    def make(role: str):
        if role == "outsider":
            c = Client()
            c.force_login(outsider)
            return c
        return client_as(role)

    return make


def complete_input(world, **overrides):
    from annotator.services.annotations import AnnotationInput

    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][1].pk]}
    return AnnotationInput(**{"values": values, **overrides})
