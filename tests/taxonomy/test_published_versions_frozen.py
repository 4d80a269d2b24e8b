"""The database refuses to change a published taxonomy version, whoever sends the statement
(taxonomy/migrations/0004): the version's row, its dimensions, its categories and its lineage."""

import importlib
import uuid

import pytest
from django.db import IntegrityError, connection, transaction

from taxonomy.models import Category, CategoryLineage, Dimension, TaxonomyVersion
from tests.factories import CategoryFactory, DimensionFactory, TaxonomyVersionFactory, UserFactory, published

pytestmark = pytest.mark.django_db


@pytest.fixture
def version():
    draft = TaxonomyVersionFactory()
    dimension = DimensionFactory(version=draft, key="symptom")
    category = CategoryFactory(dimension=dimension, code="hang", name="Hang")
    CategoryLineage.objects.create(
        version=draft,
        operation=CategoryLineage.Operation.ADD,
        dimension_key="symptom",
        to_category=category,
        to_lineage_id=category.lineage_id,
        to_name="Hang",
        actor=UserFactory(username="maintainer"),
    )
    return published(draft)


def refused():
    return pytest.raises(IntegrityError, match="published taxonomy version is never changed")


def test_a_draft_is_filled_and_published_freely(version):
    assert version.is_published
    assert Category.objects.get(dimension__version=version).name == "Hang"


@pytest.mark.parametrize(
    "change",
    [
        lambda v: TaxonomyVersion.objects.filter(pk=v.pk).update(changelog="rewritten"),
        lambda v: TaxonomyVersion.objects.filter(pk=v.pk).update(status=TaxonomyVersion.Status.DRAFT),
        lambda v: Dimension.objects.filter(version=v).update(name="Rewritten"),
        lambda v: Category.objects.filter(dimension__version=v).update(name="Rewritten"),
        lambda v: CategoryLineage.objects.filter(version=v).update(note="rewritten"),
    ],
    ids=["version", "back to draft", "dimension", "category", "lineage"],
)
def test_a_published_version_cannot_be_updated(version, change):
    with refused(), transaction.atomic():
        change(version)
    version.refresh_from_db()
    assert (version.status, version.changelog) == (TaxonomyVersion.Status.PUBLISHED, "")
    assert Category.objects.get(dimension__version=version).name == "Hang"


def test_nothing_can_be_added_to_a_published_version(version):
    dimension = Dimension.objects.get(version=version)
    with refused(), transaction.atomic():
        Category.objects.create(dimension=dimension, code="crash", name="Crash")
    with refused(), transaction.atomic():
        Dimension.objects.create(version=version, key="stage", name="Stage")
    with refused(), transaction.atomic():
        CategoryLineage.objects.create(
            version=version, operation=CategoryLineage.Operation.ADD, dimension_key="x", to_lineage_id=uuid.uuid4()
        )
    assert Category.objects.filter(dimension__version=version).count() == 1


def test_a_category_cannot_be_moved_into_a_published_version(version):
    draft = TaxonomyVersionFactory(taxonomy=version.taxonomy)
    category = CategoryFactory(dimension=DimensionFactory(version=draft))
    with refused(), transaction.atomic():
        Category.objects.filter(pk=category.pk).update(dimension=Dimension.objects.get(version=version))


def test_the_user_who_made_an_edge_of_a_published_version_can_still_be_deleted(version):
    # The edge keeps its names and lineage ids; only who made it is forgotten (SET_NULL), as for a draft.
    edge = CategoryLineage.objects.get(version=version)
    edge.actor.delete()
    edge.refresh_from_db()
    assert edge.actor_id is None and edge.to_name == "Hang"
    with refused(), transaction.atomic():
        CategoryLineage.objects.filter(pk=edge.pk).update(actor=None, note="rewritten")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite guards inserts and updates only (0004)")
@pytest.mark.parametrize("model", [Category, Dimension, CategoryLineage, TaxonomyVersion])
def test_postgresql_refuses_to_delete_from_a_published_version(version, model):
    rows = model.objects.all()
    with refused(), transaction.atomic():
        rows._raw_delete(rows.db)
    assert model.objects.count() == 1


def test_every_column_of_a_lineage_edge_but_its_author_is_guarded():
    # A column added to CategoryLineage later must be added to the guard's list, or updates of it pass.
    guards = importlib.import_module("taxonomy.migrations.0004_published_versions_frozen")
    guarded = {column.strip().strip('"') for column in guards.LINEAGE_COLUMNS.split(",")}
    columns = {field.column for field in CategoryLineage._meta.concrete_fields}
    assert guarded == columns - {"actor_id"}
