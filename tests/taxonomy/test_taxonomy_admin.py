"""The taxonomy admin: renders for staff, denied to others, and published versions are read-only."""

import pytest
from django.urls import reverse

from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services import taxonomy_template_load
from tests.factories import CategoryFactory, DimensionFactory, TaxonomyVersionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def gu(db):
    return taxonomy_template_load(source="gu-tosem23").version


def admin_urls(version: TaxonomyVersion) -> list[str]:
    category = Category.objects.filter(dimension__version=version).first()
    return [
        reverse("admin:taxonomy_taxonomy_changelist"),
        reverse("admin:taxonomy_taxonomy_change", args=[version.taxonomy.pk]),
        reverse("admin:taxonomy_taxonomyversion_changelist"),
        reverse("admin:taxonomy_taxonomyversion_change", args=[version.pk]),
        reverse("admin:taxonomy_category_changelist"),
        reverse("admin:taxonomy_category_changelist") + "?q=netowrk",
        reverse("admin:taxonomy_category_changelist")
        + f"?dimension__version__id__exact={version.pk}&deprecated__exact=0",
        reverse("admin:taxonomy_category_change", args=[category.pk]),
    ]


def test_admin_pages_render_for_staff(client_as, gu):
    client = client_as("staff")
    for url in admin_urls(gu):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("role", ["anonymous", "rater_a", "owner"])
def test_admin_pages_are_denied_to_non_staff(client_as, gu, role):
    client = client_as(role)
    for url in admin_urls(gu):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("admin:login")), url


def test_the_version_page_shows_the_indented_tree(client_as, gu):
    html = client_as("staff").get(reverse("admin:taxonomy_taxonomyversion_change", args=[gu.pk])).content.decode()
    assert "Category tree" in html
    assert "<code>training-and-evaluation.program-failure.out-of-memory</code> out of memory" in html
    assert "\u2003" * 4 + "\u2514 <code>training-and-evaluation.program-failure.out-of-memory" in html, (
        "depth 3 is indented twice"
    )


def test_the_category_search_finds_aliases(client_as, gu):
    html = client_as("staff").get(reverse("admin:taxonomy_category_changelist") + "?q=netowrk").content.decode()
    assert "fix network setting" in html


def test_a_published_version_is_read_only_in_the_admin(client_as, gu):
    client = client_as("staff")
    url = reverse("admin:taxonomy_taxonomyversion_change", args=[gu.pk])
    html = client.get(url).content.decode()
    assert 'name="changelog"' not in html, "no editable fields"
    response = client.post(url, {"taxonomy": gu.taxonomy.pk, "number": 7, "changelog": "sneaky"})
    assert response.status_code == 403
    gu.refresh_from_db()
    assert (gu.number, gu.changelog) == (1, "Derived from final_categories.xlsx.")
    delete = client.post(reverse("admin:taxonomy_taxonomyversion_delete", args=[gu.pk]), {"post": "yes"})
    assert delete.status_code == 403
    assert TaxonomyVersion.objects.filter(pk=gu.pk).exists()


def test_a_category_of_a_published_version_cannot_be_changed_or_deleted(client_as, gu):
    client = client_as("staff")
    category = Category.objects.get(dimension__version=gu, code="fix-network-setting")
    url = reverse("admin:taxonomy_category_change", args=[category.pk])
    response = client.post(url, {"dimension": category.dimension_id, "code": "x", "name": "renamed", "order": 0})
    assert response.status_code == 403
    delete = client.post(reverse("admin:taxonomy_category_delete", args=[category.pk]), {"post": "yes"})
    assert delete.status_code == 403
    category.refresh_from_db()
    assert category.name == "fix network setting"


def test_a_category_cannot_be_added_in_the_admin(client_as, gu):
    dimension = gu.dimensions.get(key="fix_pattern")
    before = Category.objects.count()
    response = client_as("staff").post(
        reverse("admin:taxonomy_category_add"),
        {"dimension": dimension.pk, "code": "sneaky", "name": "sneaky", "order": 0, "examples": "[]", "aliases": "[]"},
    )
    assert response.status_code == 403
    assert Category.objects.count() == before


def test_even_a_draft_category_is_read_only_in_the_admin(client_as):
    """Renames, moves and merges go through the editor's services (lineage, changelog, no cycles)."""
    draft = TaxonomyVersionFactory()
    dimension = DimensionFactory(version=draft)
    parent = CategoryFactory(dimension=dimension, name="parent")
    child = CategoryFactory(dimension=dimension, name="child", parent=parent)
    client = client_as("staff")
    response = client.post(
        reverse("admin:taxonomy_category_change", args=[parent.pk]),
        {"dimension": dimension.pk, "parent": child.pk, "code": parent.code, "name": "renamed", "order": 0},
    )
    assert response.status_code == 403
    parent.refresh_from_db()
    assert (parent.name, parent.parent_id) == ("parent", None)
    assert client.post(reverse("admin:taxonomy_category_delete", args=[child.pk]), {"post": "yes"}).status_code == 403
    assert client.get(reverse("admin:taxonomy_category_change", args=[parent.pk])).status_code == 200


def test_a_draft_version_is_not_edited_in_the_admin(client_as):
    draft = TaxonomyVersionFactory(changelog="")
    response = client_as("staff").post(
        reverse("admin:taxonomy_taxonomyversion_change", args=[draft.pk]),
        {"taxonomy": draft.taxonomy_id, "number": 99, "changelog": "sneaky"},
    )
    assert response.status_code == 403
    draft.refresh_from_db()
    assert draft.changelog == "" and draft.number != 99


def test_the_publish_action_publishes_drafts(client_as):
    draft = TaxonomyVersionFactory()
    CategoryFactory(dimension=DimensionFactory(version=draft))
    response = client_as("staff").post(
        reverse("admin:taxonomy_taxonomyversion_changelist"),
        {"action": "publish_selected", "_selected_action": [draft.pk]},
    )
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.is_published
