"""Saving, submitting, freezing and reopening one rater's annotation of one issue.

Every write locks the study issue first and then the annotation (always in that order), checks
the version the client saw (optimistic locking) and records a history entry.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from annotator.models import Annotation, AnnotationHistory, AnnotationValue, Assignment, StudyIssue, StudyMember
from annotator.services.history import annotation_history_record, annotation_snapshot
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import Category, Dimension

CONFLICT_MESSAGE = "This annotation was changed in another tab or window; reload to see the latest version."
FROZEN_MESSAGE = (
    "All raters have submitted this issue, so the labels are frozen for adjudication. "
    "Ask the study owner to reopen it if something must change."
)
# A client reports active seconds since its last save; more than this between two saves is not believable.
MAX_ELAPSED_PER_SAVE = 3600


@dataclass(frozen=True)
class AnnotationInput:
    """What a rater sends: category ids per dimension key and the rest of the form."""

    values: dict[str, list[int]] = field(default_factory=dict)
    note: str = ""
    excluded: bool = False
    excluded_reason: str = ""
    excluded_text: str = ""
    confidence: int | None = None
    proposals: dict[str, str] = field(default_factory=dict)


def _study_dimensions(study) -> dict[str, Dimension]:
    dimensions = list(study.dimensions.all())
    if not dimensions:
        dimensions = list(Dimension.objects.filter(version=study.taxonomy_version_id))
    return {dimension.key: dimension for dimension in dimensions}


def _clean(data: AnnotationInput, dimensions: dict[str, Dimension]) -> tuple[dict[str, list[Category]], dict]:
    """Check the input against the study's dimensions and taxonomy version; return categories and fields."""
    unknown = sorted(set(data.values) - set(dimensions))
    if unknown:
        raise DomainError(f"This study does not label the dimension(s) {', '.join(unknown)}.", field="values")
    wanted = {int(pk) for ids in data.values.values() for pk in ids}
    categories = {
        category.pk: category
        for category in Category.objects.filter(pk__in=wanted, dimension__in=list(dimensions.values()))
    }
    chosen: dict[str, list[Category]] = {}
    for key, ids in data.values.items():
        dimension = dimensions[key]
        picked = []
        for pk in dict.fromkeys(int(pk) for pk in ids):
            category = categories.get(pk)
            if category is None or category.dimension_id != dimension.pk:
                raise DomainError(
                    f"Category {pk} is not a category of '{dimension.name}' in this study's taxonomy version.",
                    field="values",
                )
            if not category.selectable or category.deprecated:
                raise DomainError(
                    f"'{category.name}' groups other categories or is deprecated; choose a category under it.",
                    field="values",
                )
            picked.append(category)
        if len(picked) > 1 and not dimension.multi_valued:
            raise DomainError(f"'{dimension.name}' takes a single category; choose one.", field="values")
        if picked:
            chosen[key] = picked
    unknown_proposals = sorted(set(data.proposals) - set(dimensions))
    if unknown_proposals:
        raise DomainError(
            f"This study does not label the dimension(s) {', '.join(unknown_proposals)}.", field="proposals"
        )
    proposals = {key: text.strip()[:500] for key, text in sorted(data.proposals.items()) if text and text.strip()}
    excluded_reason = data.excluded_reason if data.excluded else ""
    if data.excluded and excluded_reason not in {
        Annotation.ExcludedReason.NOT_A_BUG,
        Annotation.ExcludedReason.OUT_OF_SCOPE,
    }:
        raise DomainError("Say why the issue is excluded: not a bug, or out of scope.", field="excluded_reason")
    if data.confidence is not None and data.confidence not in (1, 2, 3):
        raise DomainError("Confidence is 1 (low), 2 (medium) or 3 (high).", field="confidence")
    fields = {
        "note": data.note,
        "excluded": data.excluded,
        "excluded_reason": excluded_reason,
        "excluded_text": data.excluded_text.strip() if data.excluded else "",
        "confidence": data.confidence,
        "proposals": proposals,
    }
    return chosen, fields


def _require_complete(chosen: dict[str, list[Category]], fields: dict, dimensions: dict[str, Dimension]) -> None:
    if fields["excluded"]:
        return
    missing = [
        dimension.name
        for key, dimension in sorted(dimensions.items(), key=lambda item: (item[1].order, item[0]))
        if dimension.required and key not in chosen and key not in fields["proposals"]
    ]
    if missing:
        raise DomainError(
            f"Choose a category for {', '.join(missing)} — or propose a new one, or exclude the issue.",
            field="values",
        )


def _lock_study_issue(annotation: Annotation) -> None:
    list(
        StudyIssue.objects.select_for_update(of=("self",))
        .filter(assignments__annotation=annotation.pk)
        .values_list("pk", flat=True)
    )


def _lock(annotation: Annotation, actor, expected_version: int) -> Annotation:
    # Lock order: study issue, then annotation. Submits of the same issue by two raters serialise here,
    # so the second one always sees the first and freezes the pair.
    _lock_study_issue(annotation)
    locked = (
        Annotation.objects.select_for_update(of=("self",))
        .select_related("assignment__study_issue__study")
        .get(pk=annotation.pk)
    )
    if locked.assignment.rater_id != actor.pk:
        raise PermissionDeniedError("Only the rater assigned to this issue can change this annotation.")
    if locked.frozen:
        raise ConflictError(FROZEN_MESSAGE)
    if locked.version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    return locked


def _write(locked: Annotation, chosen: dict[str, list[Category]], fields: dict, elapsed_seconds: int) -> dict:
    for name, value in fields.items():
        setattr(locked, name, value)
    locked.time_spent_seconds += max(0, min(int(elapsed_seconds or 0), MAX_ELAPSED_PER_SAVE))
    locked.version += 1  # we hold the row lock
    AnnotationValue.objects.filter(annotation=locked).delete()
    AnnotationValue.objects.bulk_create(
        [
            AnnotationValue(annotation=locked, dimension_id=category.dimension_id, category=category)
            for categories in chosen.values()
            for category in categories
        ]
    )
    return {key: [category.pk for category in categories] for key, categories in chosen.items()}


@transaction.atomic
def annotation_save_draft(
    *, annotation: Annotation, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Save work in progress (autosave). Incomplete is fine; a submitted annotation is revised by submitting."""
    locked = _lock(annotation, actor, expected_version)
    if locked.submitted_at is not None:
        raise ConflictError("This annotation is already submitted; change it and submit again to revise it.")
    dimensions = _study_dimensions(locked.assignment.study_issue.study)
    chosen, fields = _clean(data, dimensions)
    before = annotation_snapshot(locked)
    values = _write(locked, chosen, fields, elapsed_seconds)
    locked.save()
    assignment = locked.assignment
    assignment.status = Assignment.Status.DRAFTED
    assignment.skip_reason = ""
    assignment.started_at = assignment.started_at or timezone.now()
    assignment.save(update_fields=["status", "skip_reason", "started_at"])
    annotation_history_record(
        annotation=locked,
        actor=actor,
        action=AnnotationHistory.Action.DRAFT,
        before=before,
        after=annotation_snapshot(locked, values=values),
    )
    return locked


@transaction.atomic
def annotation_submit(
    *, annotation: Annotation, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Submit (or, if submitted before, revise). When every rater of the issue has submitted, all freeze."""
    locked = _lock(annotation, actor, expected_version)
    dimensions = _study_dimensions(locked.assignment.study_issue.study)
    chosen, fields = _clean(data, dimensions)
    _require_complete(chosen, fields, dimensions)
    before = annotation_snapshot(locked)
    revising = locked.submitted_at is not None
    values = _write(locked, chosen, fields, elapsed_seconds)
    now = timezone.now()
    locked.submitted_at = now
    locked.save()
    assignment = locked.assignment
    assignment.status = Assignment.Status.SUBMITTED
    assignment.skip_reason = ""
    assignment.started_at = assignment.started_at or now
    assignment.submitted_at = assignment.submitted_at or now
    assignment.save(update_fields=["status", "skip_reason", "started_at", "submitted_at"])
    annotation_history_record(
        annotation=locked,
        actor=actor,
        action=AnnotationHistory.Action.REVISE if revising else AnnotationHistory.Action.SUBMIT,
        before=before,
        after=annotation_snapshot(locked, values=values),
    )
    _freeze_if_complete(study_issue_id=assignment.study_issue_id, actor=actor)
    locked.refresh_from_db(fields=["frozen", "version"])
    return locked


def _freeze_if_complete(*, study_issue_id: int, actor) -> None:
    statuses = list(Assignment.objects.filter(study_issue_id=study_issue_id).values_list("status", flat=True))
    if len(statuses) < 2 or any(status != Assignment.Status.SUBMITTED for status in statuses):
        return
    to_freeze = list(
        Annotation.objects.select_for_update()
        .filter(assignment__study_issue_id=study_issue_id, frozen=False)
        .order_by("pk")
    )
    for annotation in to_freeze:
        before = annotation_snapshot(annotation)
        annotation.frozen = True
        annotation.version += 1
        annotation.save(update_fields=["frozen", "version", "updated_at"])
        annotation_history_record(
            annotation=annotation,
            actor=actor,
            action=AnnotationHistory.Action.FREEZE,
            before=before,
            after=annotation_snapshot(annotation),
        )


@transaction.atomic
def annotation_reopen(*, annotation: Annotation, actor, reason: str = "") -> Annotation:
    """The study owner (or staff) lets the rater change a submitted or frozen annotation again."""
    study = annotation.assignment.study_issue.study
    is_owner = StudyMember.objects.filter(study=study, user=actor, role=StudyMember.Role.OWNER).exists()
    if not (is_owner or actor.is_staff):
        raise PermissionDeniedError("Only the study's owner can reopen an annotation.")
    _lock_study_issue(annotation)
    locked = Annotation.objects.select_for_update(of=("self",)).select_related("assignment").get(pk=annotation.pk)
    before = annotation_snapshot(locked)
    locked.frozen = False
    locked.submitted_at = None
    locked.version += 1
    locked.save(update_fields=["frozen", "submitted_at", "version", "updated_at"])
    assignment = locked.assignment
    assignment.status = Assignment.Status.DRAFTED
    assignment.save(update_fields=["status"])
    after = annotation_snapshot(locked)
    after["reason"] = reason
    annotation_history_record(
        annotation=locked, actor=actor, action=AnnotationHistory.Action.REOPEN, before=before, after=after
    )
    return locked
