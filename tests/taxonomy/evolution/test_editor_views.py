"""The browser editor: who may edit, stale forms answered 409, nothing changed on denial."""

import pytest
from django.test import Client
from django.urls import reverse

from taxonomy.models import Category, CategoryLineage, TaxonomyVersion
from tests.taxonomy.evolution.conftest import cat


def client_for(user):
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def names(version):
    return sorted(Category.objects.filter(dimension__version=version).values_list("name", flat=True))


@pytest.mark.parametrize(("who", "status"), [(None, 302), ("rater", 403), ("alice", 200)])
def test_only_owners_open_the_editor(draft, editors, who, status):
    user = getattr(editors, who) if who else None
    response = client_for(user).get(reverse("taxonomy:version_edit", args=[draft.taxonomy.slug, draft.number]))
    assert response.status_code == status


@pytest.mark.parametrize(("who", "status"), [(None, 302), ("rater", 403)])
def test_a_denied_edit_changes_nothing(draft, editors, who, status):
    before = names(draft)
    user = getattr(editors, who) if who else None
    response = client_for(user).post(
        reverse("taxonomy:version_edit_apply", args=[draft.taxonomy.slug, draft.number]),
        {"op": "rename", "categories": [cat(draft, "hang").pk], "name": "stall", "revision": 0},
    )
    assert response.status_code == status
    assert names(draft) == before


def test_an_owner_merges_through_the_form(draft, editors):
    client = client_for(editors.alice)
    response = client.post(
        reverse("taxonomy:version_edit_apply", args=[draft.taxonomy.slug, draft.number]),
        {
            "op": "merge",
            "categories": [cat(draft, "hang").pk, cat(draft, "timeout").pk],
            "name": "stuck",
            "revision": 0,
        },
        follow=True,
    )
    assert response.status_code == 200
    assert "merged &#x27;hang&#x27; and &#x27;timeout&#x27; into &#x27;stuck&#x27;" in response.content.decode()
    assert CategoryLineage.objects.filter(version=draft, operation="merge").count() == 2


def test_a_stale_form_gets_409_and_changes_nothing(draft, editors):
    url = reverse("taxonomy:version_edit_apply", args=[draft.taxonomy.slug, draft.number])
    client_for(editors.alice).post(
        url, {"op": "rename", "categories": [cat(draft, "hang").pk], "name": "stall", "revision": 0}
    )
    before = names(draft)
    response = client_for(editors.bob).post(
        url, {"op": "rename", "categories": [cat(draft, "timeout").pk], "name": "time-out", "revision": 0}
    )
    assert response.status_code == 409
    assert "changed by someone else" in response.content.decode()
    assert names(draft) == before


def test_start_a_draft_and_publish_it(v1, editors):
    client = client_for(editors.alice)
    response = client.post(reverse("taxonomy:version_new_draft", args=[v1.taxonomy.slug, 1]))
    draft = TaxonomyVersion.objects.get(based_on=v1)
    assert response.status_code == 302 and response.url.endswith(f"/v{draft.number}/edit/")
    response = client.post(
        reverse("taxonomy:version_publish_draft", args=[v1.taxonomy.slug, draft.number]), {"revision": 0}
    )
    draft.refresh_from_db()
    assert draft.is_published and response.status_code == 302


def test_a_rater_cannot_start_a_draft(v1, editors):
    response = client_for(editors.rater).post(reverse("taxonomy:version_new_draft", args=[v1.taxonomy.slug, 1]))
    assert response.status_code == 403
    assert not TaxonomyVersion.objects.filter(based_on=v1).exists()
