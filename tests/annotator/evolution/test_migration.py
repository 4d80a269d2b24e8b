"""Carrying a labelled study to a new version: nothing lost, everything traceable, splits re-queued."""

import pytest

from annotator.models import AnnotationHistory, AnnotationValue, Assignment, StudyVersionMove
from annotator.services.migration import (
    agreement_per_version,
    labels_as_of_version,
    study_version_move,
    study_version_preview,
    study_version_targets,
)
from core.errors import DomainError, PermissionDeniedError
from taxonomy.models import Category
from taxonomy.services.operations import (
    categories_merge,
    category_deprecate,
    category_rename,
    category_split,
    version_draft_from,
    version_publish_with_changelog,
)


def evolve(world, actor, *, publish=True):
    """v2: symptom leaves 0+1 merged, root cause leaf 1 split, stage leaf 0 renamed, stage leaf 2 deprecated."""
    v1 = world.study.taxonomy_version
    draft = version_draft_from(version=v1, actor=actor)

    def in_draft(category):
        return Category.objects.get(dimension__version=draft, lineage_id=category.lineage_id)

    merged = categories_merge(
        categories=[in_draft(world.cats["symptom"][0]), in_draft(world.cats["symptom"][1])],
        actor=actor,
        name="hang and timeout",
    )
    parts = category_split(
        category=in_draft(world.cats["root_cause"][1]), actor=actor, parts=[{"name": "p1"}, {"name": "p2"}]
    )
    category_rename(category=in_draft(world.cats["stage"][0]), actor=actor, name="launch")
    category_deprecate(category=in_draft(world.cats["stage"][2]), actor=actor, reason="unused")
    if publish:
        draft = version_publish_with_changelog(version=draft, actor=actor)
    return draft, merged, parts


def snapshot_values(study):
    return sorted(
        AnnotationValue.objects.filter(annotation__assignment__study_issue__study=study).values_list(
            "annotation_id", "category_id"
        )
    )


def test_preview_counts_every_label_by_what_will_happen_to_it(world, users):
    v2, _, _ = evolve(world, users["owner"])
    before = snapshot_values(world.study)
    preview = study_version_preview(study=world.study, to_version=v2)
    # 10 symptom labels: issues 0,1,3,4 merged (x2 raters) = 8, issue 2 unchanged (x2) = 2.
    # root cause: A always leaf 1 (5 split); B leaf 0 or 1: issues 1,3 split, 0,2,4 unchanged.
    # stage: A leaves 0 (renamed) + 1 (unchanged) on 5 issues.
    assert preview.counts == {
        "unchanged": 2 + 3 + 5,
        "moved": 0,
        "renamed": 5,
        "merged": 8,
        "deprecated": 0,
        "split": 7,
    }
    assert preview.annotations_to_reopen == 5 + 2
    assert snapshot_values(world.study) == before  # a preview changes nothing


def test_moving_carries_every_label_and_queues_the_splits(world, users):
    v1 = world.study.taxonomy_version
    v2, merged, _parts = evolve(world, users["owner"])
    n_before = AnnotationValue.objects.filter(annotation__assignment__study_issue__study=world.study).count()
    move = study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    world.study.refresh_from_db()
    assert world.study.taxonomy_version == v2
    assert set(world.study.dimensions.values_list("version_id", flat=True)) == {v2.pk}
    values = AnnotationValue.objects.filter(annotation__assignment__study_issue__study=world.study)
    assert values.count() == n_before  # no two labels of one annotation collapsed here: none lost
    assert set(values.values_list("category__dimension__version_id", flat=True)) == {v2.pk}
    assert values.filter(category=merged).count() == 8
    split_source = Category.objects.get(dimension__version=v2, lineage_id=world.cats["root_cause"][1].lineage_id)
    assert split_source.deprecated and values.filter(category=split_source).count() == 7
    assert move.counts["reopened"] == 7 and move.counts["split"] == 7
    reopened = Assignment.objects.filter(annotation__pk__in=move.relabel_annotation_ids)
    assert set(reopened.values_list("status", flat=True)) == {Assignment.Status.DRAFTED}
    assert not reopened.filter(annotation__submitted_at__isnull=False).exists()
    # Traceable: each annotation's history holds its v1 labels, equal to what labels_as_of_version reads back.
    old = {row.annotation_id: row.values for row in labels_as_of_version(study=world.study, version=v1)}
    for annotation_id, labels in old.items():
        entry = AnnotationHistory.objects.filter(annotation_id=annotation_id, after__taxonomy_version=v2.number).get()
        assert entry.before["values"] == labels
        assert all(Category.objects.get(pk=pk).dimension.version_id == v1.pk for ids in labels.values() for pk in ids)
    assert StudyVersionMove.objects.filter(study=world.study).count() == 1


def test_agreement_is_recomputed_per_version(world, users):
    v1 = world.study.taxonomy_version
    v2, _, _ = evolve(world, users["owner"])
    study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    rows = {(r["version"], r["dimension"]): r for r in agreement_per_version(study=world.study)}
    one, two = v1.number, v2.number
    # Under v1 both raters agreed on every symptom; they still do after the merge.
    assert rows[(one, "symptom")]["issues"] == 5 and rows[(one, "symptom")]["percent"] == 1.0
    assert rows[(one, "root_cause")]["issues"] == 5 and rows[(one, "root_cause")]["percent"] == pytest.approx(0.4)
    # Under v2 the reopened annotations are not submitted: only issues where neither rater used the split.
    assert rows[(two, "symptom")]["issues"] == 0


def test_only_the_owner_moves_a_study(world, users):
    v1 = world.study.taxonomy_version
    v2, _, _ = evolve(world, users["owner"])
    before = snapshot_values(world.study)
    for role in ("rater_a", "adjudicator"):
        with pytest.raises(PermissionDeniedError):
            study_version_move(study=world.study, to_version=v2, actor=users[role])
    assert snapshot_values(world.study) == before
    world.study.refresh_from_db()
    assert world.study.taxonomy_version == v1


def test_a_draft_cannot_be_the_target(world, users):
    draft, _, _ = evolve(world, users["owner"], publish=False)
    with pytest.raises(DomainError, match="draft"):
        study_version_move(study=world.study, to_version=draft, actor=users["owner"])
    assert study_version_targets(study=world.study) == []


def test_merged_labels_of_one_annotation_collapse_into_one_without_loss(world, users):
    """A multi-valued stage label with both merged categories becomes one label; history keeps both."""
    v1 = world.study.taxonomy_version
    draft = version_draft_from(version=v1, actor=users["owner"])
    stage = [Category.objects.get(dimension__version=draft, lineage_id=c.lineage_id) for c in world.cats["stage"][:2]]
    merged = categories_merge(categories=stage, actor=users["owner"], name="any stage")
    v2 = version_publish_with_changelog(version=draft, actor=users["owner"])
    study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    a_first = world.assignments["rater_a"][0].annotation
    assert list(a_first.values.filter(dimension__key="stage").values_list("category_id", flat=True)) == [merged.pk]
    entry = AnnotationHistory.objects.filter(annotation=a_first, after__taxonomy_version=v2.number).get()
    assert sorted(entry.before["values"]["stage"]) == sorted(c.pk for c in world.cats["stage"][:2])
