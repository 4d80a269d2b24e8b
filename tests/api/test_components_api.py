"""GET / PUT /api/v1/repositories/{id}/components/: read a repository's rules, replace them in one request."""

import pytest
from django.contrib.auth.models import Group

from annotator.models import ComponentRule, Repository
from core.permissions import STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP

pytestmark = pytest.mark.django_db


@pytest.fixture
def repository(users):
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    users["rater_b"].groups.add(Group.objects.get_or_create(name=TAXONOMY_MAINTAINERS_GROUP)[0])
    repo, _ = Repository.objects.get_or_create(host="github.com", owner="hpcaitech", name="ColossalAI")
    ComponentRule.objects.create(repository=repo, pattern="colossalai/booster/**", component="Booster", position=0)
    ComponentRule.objects.create(repository=repo, pattern="colossalai/zero/**", component="ZeRO", position=1)
    return repo


def url(repository) -> str:
    return f"/api/v1/repositories/{repository.pk}/components/"


def rules(repository):
    return list(repository.component_rules.order_by("position").values_list("pattern", "component"))


@pytest.mark.parametrize(("role", "status"), [("anonymous", 401), ("rater_a", 200), ("owner", 200)])
def test_signed_in_users_read_the_rules_as_a_paginated_list(api_as, repository, role, status):
    response = api_as(role).get(url(repository), {"limit": 1})

    assert response.status_code == status
    if status == 200:
        body = response.json()
        assert body["count"] == 2 and body["next"] and body["previous"] is None
        assert body["results"] == [
            {"id": body["results"][0]["id"], "pattern": "colossalai/booster/**", "component": "Booster", "position": 0}
        ]


@pytest.mark.parametrize(
    ("role", "status"), [("anonymous", 401), ("rater_a", 403), ("adjudicator", 403), ("owner", 200), ("rater_b", 200)]
)
def test_only_owners_and_maintainers_replace_the_rules(api_as, repository, role, status):
    before = rules(repository)
    body = {"rules": [{"pattern": "colossalai/shardformer/**", "component": "Shardformer"}]}

    response = api_as(role).put(url(repository), body, format="json")

    assert response.status_code == status
    if status == 200:
        assert rules(repository) == [("colossalai/shardformer/**", "Shardformer")]
        assert response.json()["rules"][0]["pattern"] == "colossalai/shardformer/**"
    else:
        assert rules(repository) == before


def test_a_bad_glob_is_a_400_naming_the_rule_and_changes_nothing(api_as, repository):
    before = rules(repository)
    body = {"rules": [{"pattern": "ok/**", "component": "Ok"}, {"pattern": "bad/[x", "component": "Bad"}]}

    response = api_as("owner").put(url(repository), body, format="json")

    assert response.status_code == 400
    assert "pattern" in str(response.json()["error"]["fields"]["rules"])
    assert rules(repository) == before


def test_an_unknown_repository_is_a_404(api_as, repository):
    assert api_as("owner").get("/api/v1/repositories/999999/components/").status_code == 404
    assert (
        api_as("owner").put("/api/v1/repositories/999999/components/", {"rules": []}, format="json").status_code == 404
    )


def test_two_rules_with_one_pattern_are_a_409_and_change_nothing(api_as, repository):
    before = rules(repository)
    body = {"rules": [{"pattern": "tests/**", "component": "Tests"}, {"pattern": "tests/**", "component": "More"}]}

    response = api_as("owner").put(url(repository), body, format="json")

    assert response.status_code == 409
    assert rules(repository) == before
