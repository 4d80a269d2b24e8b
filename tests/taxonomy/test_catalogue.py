"""The per-process catalogue of a taxonomy version: cached only while the version cannot change."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from taxonomy.catalogue import version_catalogue
from tests.factories import CategoryFactory, DimensionFactory, TaxonomyVersionFactory, published

pytestmark = pytest.mark.django_db


def _version(*, publish: bool = False):
    version = TaxonomyVersionFactory()
    stage = DimensionFactory(version=version, key="stage", name="Stage", order=1)
    symptom = DimensionFactory(version=version, key="symptom", name="Symptom", order=0, multi_valued=True)
    CategoryFactory(dimension=stage, code="init", name="Initialisation")
    CategoryFactory(dimension=symptom, code="hang", name="Hang", deprecated=True)
    return published(version) if publish else version


def _read(version):
    return version_catalogue(version_id=version.pk, published_at=version.published_at)


def test_a_catalogue_holds_dimensions_in_display_order_and_every_category():
    version = _version(publish=True)
    catalogue = _read(version)
    assert list(catalogue.dimensions_by_key()) == ["symptom", "stage"]
    assert catalogue.dimensions_by_key()["symptom"].multi_valued is True
    names = {info.name: info for info in catalogue.categories.values()}
    assert set(names) == {"Initialisation", "Hang"}
    assert names["Hang"].deprecated is True and names["Initialisation"].selectable is True
    stage = catalogue.dimensions_by_key()["stage"]
    assert list(catalogue.dimensions_by_key([stage.pk])) == ["stage"]  # a study's subset


def test_a_published_version_is_read_once():
    version = _version(publish=True)
    _read(version)
    with CaptureQueriesContext(connection) as queries:
        again = _read(version)
    assert len(queries) == 0
    assert len(again.categories) == 2


def test_a_draft_version_is_read_every_time_so_edits_show_at_once():
    version = _version()
    assert len(_read(version).categories) == 2
    CategoryFactory(dimension=version.dimensions.get(key="stage"), code="loop", name="Training loop")
    with CaptureQueriesContext(connection) as queries:
        catalogue = _read(version)
    assert len(queries) == 2
    assert len(catalogue.categories) == 3


def test_the_publication_time_is_part_of_the_key():
    # A reused id (a rolled-back test database, a restored dump) must not hand out another version's categories.
    version = _version(publish=True)
    _read(version)
    with CaptureQueriesContext(connection) as queries:
        other = version_catalogue(version_id=version.pk, published_at=version.published_at + timedelta(seconds=1))
    assert len(queries) == 2
    assert len(other.categories) == 2
