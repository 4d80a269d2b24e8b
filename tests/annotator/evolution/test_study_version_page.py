"""The study's version page: preview counts before confirming, role matrix, nothing changes on denial."""

import pytest
from django.test import Client
from django.urls import reverse

from annotator.models import StudyVersionMove
from tests.annotator.evolution.test_migration import evolve, snapshot_values


def page(world):
    return reverse("annotator:study_version", args=[world.study.pk])


@pytest.mark.parametrize(
    ("role", "status"), [("anonymous", 302), ("outsider", 404), ("rater_a", 403), ("adjudicator", 403)]
)
def test_only_the_owner_may_move(world, users, client_for, role, status):
    v2, _, _ = evolve(world, users["owner"])
    before = snapshot_values(world.study)
    client = Client() if role == "anonymous" else client_for(role)
    response = client.post(page(world), {"to": v2.pk, "from": world.study.taxonomy_version_id})
    assert response.status_code == status
    assert snapshot_values(world.study) == before
    assert not StudyVersionMove.objects.exists()


def test_preview_then_confirm(world, users, client_for):
    v2, _, _ = evolve(world, users["owner"])
    client = client_for("owner")
    response = client.get(page(world), {"to": v2.pk})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="n-merged">8<' in html and 'data-testid="n-split">7<' in html
    assert not StudyVersionMove.objects.exists()
    response = client.post(page(world), {"to": v2.pk, "from": world.study.taxonomy_version_id}, follow=True)
    assert "queued for re-labelling" in response.content.decode()
    world.study.refresh_from_db()
    assert world.study.taxonomy_version == v2
    rows = response.context["agreement"]
    assert {r["version"] for r in rows} == {v2.based_on.number, v2.number}


def test_a_stale_form_does_not_move_twice(world, users, client_for):
    v2, _, _ = evolve(world, users["owner"])
    client = client_for("owner")
    old = world.study.taxonomy_version_id
    client.post(page(world), {"to": v2.pk, "from": old})
    response = client.post(page(world), {"to": v2.pk, "from": old}, follow=True)
    assert StudyVersionMove.objects.count() == 1
    assert response.status_code == 200


@pytest.mark.parametrize("hostile", ["١", "²", "", "x"])
def test_a_move_with_a_hostile_from_version_changes_nothing(world, users, client_for, hostile):
    v2, _, _ = evolve(world, users["owner"])
    before = snapshot_values(world.study)
    response = client_for("owner").post(page(world), {"to": v2.pk, "from": hostile}, follow=True)
    assert response.status_code == 200
    assert snapshot_values(world.study) == before
    assert not StudyVersionMove.objects.exists()
