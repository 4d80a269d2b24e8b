"""Where each category of v1 goes in a later version: the map labels are carried along."""

import pytest

from core.errors import DomainError
from taxonomy.services.operations import (
    categories_merge,
    category_deprecate,
    category_move,
    category_rename,
    category_split,
    version_category_map,
    version_draft_from,
    version_publish_with_changelog,
)
from tests.factories import TaxonomyVersionFactory
from tests.taxonomy.evolution.conftest import cat


def fate_of(v1, later, name):
    return version_category_map(from_version=v1, to_version=later)[cat(v1, name).pk]


def test_untouched_categories_map_to_their_copy(v1, draft):
    fate = fate_of(v1, draft, "out of memory")
    assert fate.kind == "unchanged" and fate.targets == (cat(draft, "out of memory").pk,)


def test_rename_move_merge_split_deprecate(v1, draft, editors):
    category_rename(category=cat(draft, "misconfiguration"), actor=editors.alice, name="misconfigured settings")
    category_move(category=cat(draft, "out of memory"), actor=editors.alice, parent=None)
    merged = categories_merge(
        categories=[cat(draft, "hang"), cat(draft, "timeout")], actor=editors.alice, name="hang or timeout"
    )
    parts = category_split(category=cat(draft, "crash"), actor=editors.alice, parts=[{"name": "a"}, {"name": "b"}])
    category_deprecate(category=cat(draft, "misused API"), actor=editors.alice, reason="vague")
    fates = version_category_map(from_version=v1, to_version=draft)
    assert fates[cat(v1, "misconfiguration").pk].kind == "renamed"
    assert fates[cat(v1, "out of memory").pk].kind == "moved"
    for name in ("hang", "timeout"):
        assert fates[cat(v1, name).pk].kind == "merged"
        assert fates[cat(v1, name).pk].new_category == merged.pk
    split = fates[cat(v1, "crash").pk]
    assert split.kind == "split" and set(split.targets) == {p.pk for p in parts}
    assert split.new_category == cat(draft, "crash").pk  # waits on the deprecated copy
    deprecated = fates[cat(v1, "misused API").pk]
    assert deprecated.kind == "deprecated" and deprecated.new_category == cat(draft, "misused API").pk


def test_fates_compose_over_several_versions(v1, draft, editors):
    categories_merge(categories=[cat(draft, "hang"), cat(draft, "timeout")], actor=editors.alice, name="stuck")
    v2 = version_publish_with_changelog(version=draft, actor=editors.alice)
    v3 = version_draft_from(version=v2, actor=editors.alice)
    category_rename(category=cat(v3, "stuck"), actor=editors.alice, name="stuck or slow")
    fate = fate_of(v1, v3, "hang")
    assert fate.kind == "merged" and fate.new_category == cat(v3, "stuck or slow").pk
    assert fate_of(v1, v3, "crash").kind == "unchanged"


def test_a_version_off_the_lineage_is_refused(v1):
    stranger = TaxonomyVersionFactory(taxonomy=v1.taxonomy, number=9)
    with pytest.raises(DomainError, match="does not follow"):
        version_category_map(from_version=v1, to_version=stranger)
