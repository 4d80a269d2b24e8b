"""Version life cycle: drafts can be published or deleted; published versions never change."""

import pytest
from django.db.models import ProtectedError

from core.errors import ConflictError, DomainError
from taxonomy.errors import VersionImmutableError
from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.services import version_delete, version_ensure_draft, version_publish
from tests.factories import CategoryFactory, DimensionFactory, TaxonomyVersionFactory, published
from tests.taxonomy.factories import build_tree

pytestmark = pytest.mark.django_db


def snapshot(version: TaxonomyVersion) -> tuple:
    version.refresh_from_db()
    return (
        version.status,
        version.published_at,
        list(Dimension.objects.filter(version=version).values_list("pk", "key")),
        list(Category.objects.filter(dimension__version=version).values_list("pk", "code", "name")),
    )


def test_publishing_a_draft_makes_it_published():
    draft = TaxonomyVersionFactory()
    CategoryFactory(dimension=DimensionFactory(version=draft))
    version_publish(version=draft)
    draft.refresh_from_db()
    assert draft.is_published
    assert draft.published_at is not None


def test_a_published_version_cannot_be_published_again():
    version = TaxonomyVersionFactory()
    CategoryFactory(dimension=DimensionFactory(version=version))
    published(version)
    before = snapshot(version)
    with pytest.raises(VersionImmutableError, match="is published and cannot change"):
        version_publish(version=version)
    assert snapshot(version) == before


def test_a_published_version_cannot_be_deleted():
    version = TaxonomyVersionFactory()
    build_tree(DimensionFactory(version=version), roots=2, children=2, grandchildren=2)
    published(version)
    before = snapshot(version)
    with pytest.raises(VersionImmutableError):
        version_delete(version=version)
    assert snapshot(version) == before


def test_the_edit_guard_refuses_published_versions_and_accepts_drafts():
    version_ensure_draft(version=TaxonomyVersionFactory())
    with pytest.raises(VersionImmutableError) as caught:
        version_ensure_draft(version=TaxonomyVersionFactory(published=True))
    assert caught.value.status_code == 409


def test_an_empty_draft_cannot_be_published():
    draft = TaxonomyVersionFactory()
    with pytest.raises(DomainError, match="no selectable category"):
        version_publish(version=draft)
    draft.refresh_from_db()
    assert draft.status == "draft"


def test_a_draft_is_deleted_with_its_whole_tree():
    draft = TaxonomyVersionFactory()
    build_tree(DimensionFactory(version=draft), roots=2, children=3, grandchildren=2)
    other = TaxonomyVersionFactory()
    kept = CategoryFactory(dimension=DimensionFactory(version=other))
    version_delete(version=draft)
    assert not TaxonomyVersion.objects.filter(pk=draft.pk).exists()
    assert list(Category.objects.values_list("pk", flat=True)) == [kept.pk]


def test_a_draft_that_a_later_version_builds_on_is_kept():
    base = TaxonomyVersionFactory()
    TaxonomyVersionFactory(taxonomy=base.taxonomy, based_on=base)
    with pytest.raises(ConflictError, match="base of a later version"):
        version_delete(version=base)
    assert TaxonomyVersion.objects.filter(pk=base.pk).exists()


def test_category_parents_are_protected_from_a_stray_delete():
    draft = TaxonomyVersionFactory()
    build_tree(DimensionFactory(version=draft), roots=1, children=1, grandchildren=1)
    with pytest.raises(ProtectedError):
        Category.objects.get(code="r0").delete()


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_database_refuses_a_cycle_in_the_category_tree():
    from django.db import IntegrityError, connection, transaction

    if connection.vendor != "postgresql":
        pytest.skip("the tree guard is a PostgreSQL trigger; on SQLite the services are the only writers")
    dimension = DimensionFactory()
    parent = CategoryFactory(dimension=dimension)
    child = CategoryFactory(dimension=dimension, parent=parent)
    grandchild = CategoryFactory(dimension=dimension, parent=child)
    with pytest.raises(IntegrityError, match="cycle"), transaction.atomic():
        Category.objects.filter(pk=parent.pk).update(parent=grandchild)
    other = CategoryFactory(dimension=DimensionFactory(version=dimension.version, key="other"))
    with pytest.raises(IntegrityError, match="same dimension"), transaction.atomic():
        Category.objects.filter(pk=other.pk).update(parent=parent)
    parent.refresh_from_db()
    assert parent.parent_id is None
