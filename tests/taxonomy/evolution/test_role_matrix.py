"""Taxonomies are shared by every team: only taxonomy maintainers and staff open the editor, start a
draft, edit or publish it. A study owner is refused like a rater, and nothing changes on denial."""

import pytest
from django.test import Client
from django.urls import reverse

from taxonomy.models import Category, TaxonomyVersion
from tests.factories import UserFactory
from tests.taxonomy.evolution.conftest import cat

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "rater", "study_owner", "maintainer", "staff")


def client_for(role: str, editors) -> Client:
    client = Client()
    user = {
        "anonymous": None,
        "rater": editors.rater,
        "study_owner": editors.study_owner,
        "maintainer": editors.alice,
        "staff": UserFactory(username="staffer", is_staff=True),
    }[role]
    if user is not None:
        client.force_login(user)
    return client


def snapshot() -> tuple:
    versions = tuple(TaxonomyVersion.objects.order_by("pk").values_list("pk", "number", "status", "edit_revision"))
    categories = tuple(Category.objects.order_by("pk").values_list("pk", "name", "parent_id", "deprecated"))
    return versions, categories


EXPECTED_WRITE = {"anonymous": 302, "rater": 403, "study_owner": 403}


@pytest.mark.parametrize(
    ("role", "status"), [("anonymous", 302), ("rater", 403), ("study_owner", 403), ("maintainer", 200), ("staff", 200)]
)
def test_who_opens_the_editor(draft, editors, role, status):
    url = reverse("taxonomy:version_edit", args=[draft.taxonomy.slug, draft.number])
    assert client_for(role, editors).get(url).status_code == status


@pytest.mark.parametrize("role", sorted(EXPECTED_WRITE))
def test_denied_writes_change_nothing(draft, v1, editors, role):
    client = client_for(role, editors)
    slug = draft.taxonomy.slug
    before = snapshot()
    requests = [
        (reverse("taxonomy:version_new_draft", args=[slug, v1.number]), {}),
        (
            reverse("taxonomy:version_edit_apply", args=[slug, draft.number]),
            {"op": "rename", "categories": [cat(draft, "hang").pk], "name": "stall", "revision": draft.edit_revision},
        ),
        (reverse("taxonomy:version_publish_draft", args=[slug, draft.number]), {"revision": draft.edit_revision}),
    ]
    for url, data in requests:
        assert client.post(url, data).status_code == EXPECTED_WRITE[role], url
    assert snapshot() == before


@pytest.mark.parametrize("role", ["maintainer", "staff"])
def test_maintainers_and_staff_publish(draft, editors, role):
    url = reverse("taxonomy:version_publish_draft", args=[draft.taxonomy.slug, draft.number])
    response = client_for(role, editors).post(url, {"revision": draft.edit_revision})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.is_published


def test_the_version_page_offers_editing_only_to_those_who_may(v1, editors):
    url = reverse("taxonomy:version_detail", args=[v1.taxonomy.slug, v1.number])
    edit = reverse("taxonomy:version_edit", args=[v1.taxonomy.slug, v1.number])
    assert edit not in client_for("study_owner", editors).get(url).content.decode()
    assert edit in client_for("maintainer", editors).get(url).content.decode()
