import pytest

from core.errors import NotFoundError
from taxonomy.selectors import version_by_id, version_dimensions_by_key
from tests.factories import DimensionFactory, TaxonomyVersionFactory

pytestmark = pytest.mark.django_db


def test_a_version_is_found_by_its_id_and_an_unknown_id_is_not_found():
    version = TaxonomyVersionFactory()
    assert version_by_id(pk=version.pk) == version
    with pytest.raises(NotFoundError, match="No taxonomy version"):
        version_by_id(pk=version.pk + 1000)


def test_dimensions_come_in_the_order_named_each_once_and_keys_are_trimmed():
    version = TaxonomyVersionFactory()
    stage = DimensionFactory(version=version, key="stage")
    symptom = DimensionFactory(version=version, key="symptom")
    assert version_dimensions_by_key(version=version, keys=["symptom", " stage", "symptom"]) == [symptom, stage]
    assert version_dimensions_by_key(version=version, keys=[]) == []


def test_another_versions_dimension_cannot_be_named():
    version, other = TaxonomyVersionFactory(), TaxonomyVersionFactory()
    DimensionFactory(version=version, key="stage")
    DimensionFactory(version=other, key="root_cause")
    with pytest.raises(NotFoundError, match="no dimension 'root_cause'"):
        version_dimensions_by_key(version=version, keys=["stage", "root_cause"])
