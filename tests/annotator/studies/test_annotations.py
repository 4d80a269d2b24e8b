import pytest

from annotator.models import AnnotationHistory, AnnotationValue, Assignment
from annotator.services.annotations import (
    CONFLICT_MESSAGE,
    AnnotationInput,
    annotation_reopen,
    annotation_save_draft,
    annotation_submit,
)
from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from tests.annotator.final_labels import values_of
from tests.annotator.studies.factories import make_taxonomy
from tests.annotator.worlds import complete_input
from tests.factories import CategoryFactory


def _values(annotation):
    return sorted(AnnotationValue.objects.filter(annotation=annotation).values_list("category_id", flat=True))


def test_a_draft_is_saved_versioned_and_recorded(world, users):
    annotation = world.a.annotation
    data = AnnotationInput(values={"symptom": [world.cats["symptom"][0].pk]}, note="looks like NCCL")
    saved = annotation_save_draft(
        annotation=annotation, actor=users["rater_a"], data=data, expected_version=1, elapsed_seconds=30
    )
    assert (saved.version, saved.note, saved.time_spent_seconds) == (2, "looks like NCCL", 30)
    assert _values(annotation) == [world.cats["symptom"][0].pk]
    world.a.refresh_from_db()
    assert world.a.status == Assignment.Status.DRAFTED and world.a.started_at is not None
    entry = AnnotationHistory.objects.get(annotation=annotation)
    assert entry.action == "draft" and entry.before["values"] == {}
    assert entry.after["values"] == {"symptom": [world.cats["symptom"][0].pk]}


def test_a_stale_version_is_a_conflict_and_changes_nothing(world, users):
    annotation = world.a.annotation
    annotation_save_draft(
        annotation=annotation, actor=users["rater_a"], data=AnnotationInput(note="tab 1"), expected_version=1
    )
    with pytest.raises(ConflictError) as excinfo:
        annotation_save_draft(
            annotation=annotation, actor=users["rater_a"], data=AnnotationInput(note="tab 2"), expected_version=1
        )
    assert excinfo.value.message == CONFLICT_MESSAGE
    annotation.refresh_from_db()
    assert (annotation.note, annotation.version) == ("tab 1", 2)


def test_time_spent_adds_up_and_an_unbelievable_gap_is_capped(world, users):
    annotation = world.a.annotation
    annotation_save_draft(
        annotation=annotation, actor=users["rater_a"], data=AnnotationInput(), expected_version=1, elapsed_seconds=40
    )
    annotation_save_draft(
        annotation=annotation, actor=users["rater_a"], data=AnnotationInput(), expected_version=2, elapsed_seconds=10**7
    )
    annotation.refresh_from_db()
    assert annotation.time_spent_seconds == 40 + 3600


def test_submit_requires_every_required_dimension(world, users):
    data = AnnotationInput(values={"symptom": [world.cats["symptom"][0].pk]})
    with pytest.raises(DomainError, match="Root Cause"):
        annotation_submit(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.submitted_at is None and world.a.annotation.version == 1


def test_an_excluded_issue_may_leave_required_dimensions_empty(world, users):
    data = AnnotationInput(excluded=True, excluded_reason="not_a_bug", excluded_text="feature request")
    result = annotation_submit(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)
    assert result.submitted_at is not None and result.excluded


def test_exclusion_needs_a_reason(world, users):
    with pytest.raises(DomainError, match="not a bug, or out of scope"):
        annotation_submit(
            annotation=world.a.annotation,
            actor=users["rater_a"],
            data=AnnotationInput(excluded=True),
            expected_version=1,
        )


def test_a_proposal_stands_in_for_a_required_dimension(world, users):
    data = AnnotationInput(
        values={"symptom": [world.cats["symptom"][0].pk]}, proposals={"root_cause": "ZeRO-3 partition mismatch"}
    )
    result = annotation_submit(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)
    assert result.proposals == {"root_cause": "ZeRO-3 partition mismatch"}


def test_a_category_of_another_dimension_is_refused(world, users):
    data = AnnotationInput(values={"symptom": [world.cats["root_cause"][0].pk]})
    with pytest.raises(DomainError, match="not a category of 'Symptom'"):
        annotation_save_draft(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)


def test_a_category_of_another_taxonomy_version_is_refused(world, users):
    other = make_taxonomy()
    data = AnnotationInput(values={"symptom": [other["cats"]["symptom"][0].pk]})
    with pytest.raises(DomainError, match="this study's taxonomy version"):
        annotation_save_draft(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)
    assert not AnnotationValue.objects.exists()


def test_a_group_or_deprecated_category_is_refused(world, users):
    deprecated = CategoryFactory(dimension=world.dims["symptom"], deprecated=True)
    for category in (world.taxonomy["groups"]["symptom"], deprecated):
        with pytest.raises(DomainError, match="choose a category under it"):
            annotation_save_draft(
                annotation=world.a.annotation,
                actor=users["rater_a"],
                data=AnnotationInput(values={"symptom": [category.pk]}),
                expected_version=1,
            )


def test_single_valued_dimensions_take_one_category_and_multi_valued_several(world, users):
    two = [c.pk for c in world.cats["symptom"][:2]]
    with pytest.raises(DomainError, match="takes a single category"):
        annotation_save_draft(
            annotation=world.a.annotation,
            actor=users["rater_a"],
            data=AnnotationInput(values={"symptom": two}),
            expected_version=1,
        )
    stages = [c.pk for c in world.cats["stage"][:2]]
    annotation_save_draft(
        annotation=world.a.annotation,
        actor=users["rater_a"],
        data=AnnotationInput(values={"stage": stages}),
        expected_version=1,
    )
    assert _values(world.a.annotation) == sorted(stages)


def test_an_unknown_dimension_is_refused(world, users):
    with pytest.raises(DomainError, match="does not label"):
        annotation_save_draft(
            annotation=world.a.annotation,
            actor=users["rater_a"],
            data=AnnotationInput(values={"fix_pattern": [1]}),
            expected_version=1,
        )


def test_another_rater_cannot_write_my_annotation(world, users):
    # Blind: another rater may not even learn that the annotation exists (the API answers 404).
    with pytest.raises(NotFoundError):
        annotation_save_draft(
            annotation=world.a.annotation, actor=users["rater_b"], data=AnnotationInput(note="x"), expected_version=1
        )
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.note == ""
    assert world.a.annotation.values.count() == 0


def test_the_owner_sees_but_cannot_write_a_raters_annotation(world, users):
    annotation_save_draft(
        annotation=world.a.annotation,
        actor=users["rater_a"],
        data=AnnotationInput(values={"symptom": [world.cats["symptom"][0].pk]}),
        expected_version=1,
    )
    for service in (annotation_save_draft, annotation_submit):
        with pytest.raises(PermissionDeniedError):
            service(
                annotation=world.a.annotation.pk, actor=users["owner"], data=complete_input(world), expected_version=2
            )
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.version == 2
    assert list(world.a.annotation.values.values_list("category_id", flat=True)) == [world.cats["symptom"][0].pk]


def test_revise_until_the_other_rater_submits_then_frozen(world, users):
    a, b = world.a.annotation, world.b.annotation
    first = annotation_submit(annotation=a, actor=users["rater_a"], data=complete_input(world), expected_version=1)
    assert not first.frozen
    revised = annotation_submit(
        annotation=a, actor=users["rater_a"], data=complete_input(world, note="on reflection"), expected_version=2
    )
    assert revised.note == "on reflection" and not revised.frozen
    annotation_submit(annotation=b, actor=users["rater_b"], data=complete_input(world), expected_version=1)
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.frozen and b.frozen
    with pytest.raises(ConflictError, match="frozen"):
        annotation_submit(annotation=a, actor=users["rater_a"], data=complete_input(world), expected_version=a.version)
    actions = list(AnnotationHistory.objects.filter(annotation=a).order_by("id").values_list("action", flat=True))
    assert actions == ["submit", "revise", "freeze"]
    assert AnnotationHistory.objects.filter(annotation=a, action="revise").get().before["note"] == ""


def test_a_draft_after_submitting_is_refused(world, users):
    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    with pytest.raises(ConflictError, match="submit again"):
        annotation_save_draft(
            annotation=world.a.annotation, actor=users["rater_a"], data=AnnotationInput(), expected_version=2
        )


def test_the_owner_can_reopen_a_frozen_annotation_and_a_rater_cannot(world, users):
    a, b = world.a.annotation, world.b.annotation
    annotation_submit(annotation=a, actor=users["rater_a"], data=complete_input(world), expected_version=1)
    annotation_submit(annotation=b, actor=users["rater_b"], data=complete_input(world), expected_version=1)
    a.refresh_from_db()
    with pytest.raises(PermissionDeniedError):
        annotation_reopen(annotation=a, actor=users["rater_a"])
    reopened = annotation_reopen(annotation=a, actor=users["owner"], reason="typo")
    assert not reopened.frozen and reopened.submitted_at is None
    assert AnnotationHistory.objects.filter(annotation=a, action="reopen").get().after["reason"] == "typo"


def test_the_resolution_written_on_freeze_is_what_resolution_auto_writes(world, users):
    from annotator.models import Resolution, ResolutionHistory
    from annotator.services.resolutions import resolution_auto

    a, b = world.a.annotation, world.b.annotation
    annotation_submit(annotation=a, actor=users["rater_a"], data=complete_input(world), expected_version=1)
    other = complete_input(
        world, values={"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]}
    )
    annotation_submit(annotation=b, actor=users["rater_b"], data=other, expected_version=1)
    fast = Resolution.objects.get(study_issue=world.a.study_issue)
    entry = ResolutionHistory.objects.get(resolution=fast)
    assert (entry.action, entry.version, entry.before, entry.actor) == ("auto", 1, {}, users["rater_b"])
    names = ["values", "methods", "excluded", "disagreement_keys", "disagreement_count", "status", "method", "version"]
    fast_fields = {name: values_of(fast) if name == "values" else getattr(fast, name) for name in names}
    assert fast.disagreement_keys == ",root_cause," and fast.status == Resolution.Status.PENDING

    entry.delete()
    fast.delete()
    slow = resolution_auto(study_issue=world.a.study_issue)
    assert {name: values_of(slow) if name == "values" else getattr(slow, name) for name in names} == fast_fields
    assert ResolutionHistory.objects.get(resolution=slow).after.keys() == entry.after.keys()


def _first_submission(annotation):
    from annotator.models import FirstSubmission

    first = FirstSubmission.objects.get(annotation=annotation)
    return first, sorted(first.values.values_list("category_id", flat=True))


def test_the_first_submission_is_kept_as_submitted_and_a_revision_leaves_it(world, users):
    a = world.a.annotation
    annotation_submit(
        annotation=a, actor=users["rater_a"], data=complete_input(world, note="first"), expected_version=1
    )
    first, values = _first_submission(a)
    assert (first.rater, first.study_issue, first.note, first.source) == (
        users["rater_a"],
        world.a.study_issue,
        "first",
        "app",
    )
    other = complete_input(
        world,
        values={"symptom": [world.cats["symptom"][1].pk], "root_cause": [world.cats["root_cause"][1].pk]},
        note="second",
    )
    annotation_submit(annotation=a, actor=users["rater_a"], data=other, expected_version=2)
    assert _first_submission(a) == (first, values)
    assert _first_submission(a)[0].note == "first"


def test_a_resubmit_after_a_send_back_leaves_the_first_submission(world, users):
    from annotator.services.resolutions import resolution_send_back

    a, b = world.a.annotation, world.b.annotation
    annotation_submit(annotation=a, actor=users["rater_a"], data=complete_input(world), expected_version=1)
    other = complete_input(
        world, values={"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]}
    )
    annotation_submit(annotation=b, actor=users["rater_b"], data=other, expected_version=1)
    first_b = _first_submission(b)
    resolution = world.a.study_issue.resolution
    resolution_send_back(
        study_issue=world.a.study_issue, actor=users["adjudicator"], note="discuss", expected_version=resolution.version
    )
    b.refresh_from_db()
    annotation_submit(annotation=b, actor=users["rater_b"], data=complete_input(world), expected_version=b.version)
    b.refresh_from_db()
    assert sorted(b.values.values_list("category_id", flat=True)) != first_b[1]
    assert _first_submission(b) == first_b


def test_the_database_refuses_to_change_a_first_submission(world, users):
    from django.db import IntegrityError, transaction

    from annotator.models import FirstSubmission, FirstSubmissionValue

    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    first = FirstSubmission.objects.get(annotation=world.a.annotation)
    with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
        FirstSubmission.objects.filter(pk=first.pk).update(note="rewritten")
    with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
        FirstSubmissionValue.objects.filter(first_submission=first).update(category=world.cats["symptom"][2])
    first.refresh_from_db()
    assert first.note == ""


def test_the_database_refuses_to_change_an_entry_of_an_annotations_history(world, users):
    from django.db import IntegrityError, transaction

    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    entry = AnnotationHistory.objects.get(annotation=world.a.annotation)
    with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
        AnnotationHistory.objects.filter(pk=entry.pk).update(after={"values": {}}, actor=users["owner"])
    assert AnnotationHistory.objects.get(pk=entry.pk).after == entry.after
    assert AnnotationHistory.objects.get(pk=entry.pk).actor_id == users["rater_a"].pk


@pytest.mark.parametrize("service", [annotation_save_draft, annotation_submit])
def test_a_category_and_a_proposal_in_one_single_valued_dimension_are_refused(world, users, service):
    data = complete_input(world, note="kept?", proposals={"symptom": "NCCL watchdog timeout"})
    with pytest.raises(DomainError, match="'Symptom' takes a single category") as refused:
        service(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)
    assert refused.value.field == "proposals" and "not both" in refused.value.message
    world.a.annotation.refresh_from_db()
    assert (world.a.annotation.version, world.a.annotation.proposals, world.a.annotation.note) == (1, {}, "")
    assert not AnnotationValue.objects.exists() and not AnnotationHistory.objects.exists()


def test_a_proposal_beside_categories_of_a_multi_valued_dimension_is_kept(world, users):
    stage = [world.cats["stage"][0].pk]
    data = AnnotationInput(
        values={**complete_input(world).values, "stage": stage}, proposals={"stage": "Checkpoint resharding"}
    )
    result = annotation_submit(annotation=world.a.annotation, actor=users["rater_a"], data=data, expected_version=1)
    assert result.proposals == {"stage": "Checkpoint resharding"} and result.current_values["stage"] == stage
