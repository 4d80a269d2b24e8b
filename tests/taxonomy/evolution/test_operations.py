"""Edit operations on a draft: each records lineage, bumps the revision and keeps published versions intact."""

import pytest

from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.errors import VersionImmutableError
from taxonomy.models import Category, CategoryLineage, TaxonomyVersion
from taxonomy.services.operations import (
    categories_merge,
    category_add,
    category_alias_add,
    category_deprecate,
    category_move,
    category_redefine,
    category_rename,
    category_split,
    version_draft_from,
    version_publish_with_changelog,
)
from tests.taxonomy.evolution.conftest import cat

Op = CategoryLineage.Operation


def edges(version, operation):
    return list(CategoryLineage.objects.filter(version=version, operation=operation).order_by("id"))


def test_a_draft_copies_every_category_keeping_its_lineage_id(v1, draft):
    old = {c.lineage_id: c for c in Category.objects.filter(dimension__version=v1)}
    new = {c.lineage_id: c for c in Category.objects.filter(dimension__version=draft)}
    assert set(old) == set(new)
    assert all(new[k].name == old[k].name for k in old)
    assert len(edges(draft, Op.COPY)) == len(old)
    assert draft.based_on_id == v1.pk and draft.status == TaxonomyVersion.Status.DRAFT and draft.number == 2
    assert cat(draft, "hang").parent.name == "setup failure"


def test_starting_a_draft_twice_returns_the_same_draft(v1, draft, editors):
    assert version_draft_from(version=v1, actor=editors.bob).pk == draft.pk


def test_a_published_version_cannot_be_edited(v1, editors):
    before = list(Category.objects.filter(dimension__version=v1).values_list("name", flat=True))
    with pytest.raises(VersionImmutableError):
        category_rename(category=cat(v1, "hang"), actor=editors.alice, name="stall")
    assert list(Category.objects.filter(dimension__version=v1).values_list("name", flat=True)) == before


def test_only_owners_and_staff_may_edit(draft, editors):
    with pytest.raises(PermissionDeniedError):
        category_add(version=draft, actor=editors.rater, dimension_key="symptom", name="nccl error")
    assert not Category.objects.filter(dimension__version=draft, name="nccl error").exists()


def test_add_records_an_add_edge_and_bumps_the_revision(draft, editors):
    category = category_add(
        version=draft,
        actor=editors.alice,
        dimension_key="symptom",
        name="  NCCL   error ",
        parent=cat(draft, "setup failure"),
        expected_revision=0,
    )
    draft.refresh_from_db()
    assert category.name == "NCCL error" and category.parent.name == "setup failure"
    assert draft.edit_revision == 1
    [edge] = edges(draft, Op.ADD)
    assert edge.to_category == category and edge.from_category is None and edge.actor == editors.alice
    assert "added 'NCCL error'" in draft.changelog


def test_rename_keeps_the_lineage_and_the_old_name_as_alias(draft, editors):
    hang = cat(draft, "hang")
    renamed = category_rename(category=hang, actor=editors.alice, name="hang or stall")
    assert renamed.lineage_id == hang.lineage_id and "hang" in renamed.aliases
    [edge] = edges(draft, Op.RENAME)
    assert (edge.from_name, edge.to_name) == ("hang", "hang or stall")


def test_redefine_and_move(draft, editors):
    oom = category_redefine(category=cat(draft, "out of memory"), actor=editors.alice, definition="CUDA OOM.")
    assert oom.definition == "CUDA OOM."
    moved = category_move(category=cat(draft, "crash"), actor=editors.alice, parent=cat(draft, "memory issue"))
    assert moved.parent.name == "memory issue"
    assert edges(draft, Op.MOVE)[0].note == "under 'memory issue'"


def test_a_category_cannot_move_under_itself(draft, editors):
    with pytest.raises(DomainError):
        category_move(category=cat(draft, "setup failure"), actor=editors.alice, parent=cat(draft, "hang"))
    assert cat(draft, "setup failure").parent is None


def test_merge_into_a_new_category_deprecates_the_sources(draft, editors):
    hang, timeout = cat(draft, "hang"), cat(draft, "timeout")
    merged = categories_merge(categories=[hang, timeout], actor=editors.alice, name="hang and timeout")
    hang.refresh_from_db()
    timeout.refresh_from_db()
    assert hang.deprecated and timeout.deprecated and not hang.selectable
    assert merged.parent.name == "setup failure" and {"hang", "timeout"} <= set(merged.aliases)
    assert [(e.from_name, e.to_name) for e in edges(draft, Op.MERGE)] == [
        ("hang", "hang and timeout"),
        ("timeout", "hang and timeout"),
    ]
    draft.refresh_from_db()
    assert "merged 'hang' and 'timeout' into 'hang and timeout'" in draft.changelog


def test_merge_into_one_of_the_categories(draft, editors):
    hang, timeout = cat(draft, "hang"), cat(draft, "timeout")
    kept = categories_merge(categories=[hang, timeout], actor=editors.alice, into=hang)
    assert kept.pk == hang.pk and not kept.deprecated and "timeout" in kept.aliases
    assert len(edges(draft, Op.MERGE)) == 1


def test_merge_needs_two_categories_of_one_dimension(draft, editors):
    with pytest.raises(DomainError):
        categories_merge(categories=[cat(draft, "hang")], actor=editors.alice, name="x")
    with pytest.raises(DomainError):
        categories_merge(categories=[cat(draft, "hang"), cat(draft, "misused API")], actor=editors.alice, name="x")
    assert not Category.objects.filter(dimension__version=draft, deprecated=True).exists()


def test_split_creates_parts_beside_the_source(draft, editors):
    parts = category_split(
        category=cat(draft, "crash"),
        actor=editors.alice,
        parts=[{"name": "segfault"}, {"name": "python exception", "definition": "A traceback."}],
    )
    assert [p.parent.name for p in parts] == ["setup failure", "setup failure"]
    assert cat(draft, "crash").deprecated
    draft.refresh_from_db()
    assert "split 'crash' into 'segfault' and 'python exception'" in draft.changelog


def test_deprecate_needs_a_reason_and_keeps_the_row(draft, editors):
    with pytest.raises(DomainError):
        category_deprecate(category=cat(draft, "misused API"), actor=editors.alice, reason=" ")
    category_deprecate(category=cat(draft, "misused API"), actor=editors.alice, reason="too vague")
    assert cat(draft, "misused API").deprecated
    assert edges(draft, Op.DEPRECATE)[0].to_category is None


def test_alias_add_ignores_known_spellings(draft, editors):
    hang = category_alias_add(category=cat(draft, "hang"), actor=editors.alice, aliases=["Hang", "deadlock"])
    assert hang.aliases == ["deadlock"]
    assert len(edges(draft, Op.ALIAS)) == 1


def test_a_stale_revision_is_refused_and_changes_nothing(draft, editors):
    category_rename(category=cat(draft, "hang"), actor=editors.alice, name="stall", expected_revision=0)
    with pytest.raises(ConflictError, match="changed by someone else"):
        category_rename(category=cat(draft, "timeout"), actor=editors.bob, name="time-out", expected_revision=0)
    assert Category.objects.filter(dimension__version=draft, name="timeout").exists()


def test_publishing_fixes_the_changelog_and_freezes_the_version(draft, editors):
    category_rename(category=cat(draft, "hang"), actor=editors.alice, name="stall")
    published = version_publish_with_changelog(version=draft, actor=editors.alice)
    assert published.is_published
    assert published.changelog.startswith("## v2 (from v1)")
    assert "renamed 'hang' to 'stall'" in published.changelog
    with pytest.raises(VersionImmutableError):
        category_rename(category=cat(published, "stall"), actor=editors.alice, name="hang")
