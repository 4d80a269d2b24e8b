"""Saving, submitting, freezing and reopening one rater's annotation of one issue.

Submits and reopens lock the study issue first and then the annotation with its assignment (always
in that order), so two raters submitting one issue serialise and the second always freezes the pair.
A draft locks only the annotation and its assignment: it refuses a submitted annotation, so it can
never complete an issue or race a freeze. Every write checks the version the client saw (optimistic
locking), records a history entry and keeps the rater's progress counters in step when the
assignment's status changes.

These are the hottest writes of the product (autosave), so each reads what it needs once: the
labels being replaced come back from the DELETE itself, and the returned annotation carries its
new labels (`current_values`) so a caller can answer without reading them again.
"""

from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone

from annotator.models import Annotation, AnnotationHistory, AnnotationValue, Assignment, StudyIssue, StudyMember
from annotator.services.agreement.version import study_labels_changed
from annotator.services.history import annotation_history_record, annotation_snapshot
from annotator.services.progress import rater_progress_move
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


def _study_dimensions(study_id: int) -> dict[str, Dimension]:
    """The dimensions the study labels (all of its version's when it names none)."""
    dimensions = list(Dimension.objects.filter(studies=study_id).order_by("order", "key", "pk"))
    if not dimensions:
        dimensions = list(Dimension.objects.filter(version__studies=study_id).order_by("order", "key", "pk"))
    return {dimension.key: dimension for dimension in dimensions}


def _study_id(assignment: Assignment) -> int:
    # The queue copy, or (for assignments written before it existed) the study issue's.
    return assignment.study_id or assignment.study_issue.study_id


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


def _lock_study_issue(annotation: Annotation) -> StudyIssue:
    return StudyIssue.objects.select_for_update(of=("self",)).filter(assignments__annotation=annotation.pk).get()


def _lock(annotation: Annotation, actor, expected_version: int, study_issue: StudyIssue | None = None) -> Annotation:
    """The annotation, locked and checked: the actor is its rater, it is not frozen, the version is current."""
    # The assignment row too: its status moves a progress counter, so it must not change under us
    # (a skip in another tab). Lock order everywhere: study issue, annotation, assignment, counter.
    locked = (
        Annotation.objects.select_for_update(of=("self", "assignment"))
        .select_related("assignment__study_issue")
        .get(pk=annotation.pk)
    )
    assignment = locked.assignment
    if assignment.rater_id != actor.pk:
        raise PermissionDeniedError("Only the rater assigned to this issue can change this annotation.")
    if locked.frozen:
        raise ConflictError(FROZEN_MESSAGE)
    if locked.version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    assignment.rater = actor  # checked above: saves a query for whoever shows the rater's name
    if study_issue is not None:
        assignment.study_issue = study_issue
    return locked


def _take_values(annotation: Annotation, dimensions: dict[str, Dimension]) -> dict[str, list[int]]:
    """Delete the annotation's labels and return them (category ids per dimension key): one statement."""
    meta = AnnotationValue._meta
    quote = connection.ops.quote_name
    column = {name: quote(meta.get_field(name).column) for name in ("annotation", "dimension", "category")}
    with connection.cursor() as cursor:
        cursor.execute(
            # Identifiers come from the model's metadata; the only value is a parameter.
            f"DELETE FROM {quote(meta.db_table)} WHERE {column['annotation']} = %s "  # noqa: S608
            f"RETURNING {column['dimension']}, {column['category']}",
            [annotation.pk],
        )
        rows = cursor.fetchall()
    keys = {dimension.pk: key for key, dimension in dimensions.items()}
    unknown = {dimension_id for dimension_id, _ in rows if dimension_id not in keys}
    if unknown:  # labels of a dimension the study no longer uses: still part of the history
        keys.update(Dimension.objects.filter(pk__in=unknown).values_list("pk", "key"))
    values: dict[str, list[int]] = {}
    for dimension_id, category_id in rows:
        values.setdefault(keys[dimension_id], []).append(category_id)
    return values


def _write(
    locked: Annotation,
    chosen: dict[str, list[Category]],
    fields: dict,
    elapsed_seconds: int,
    dimensions: dict[str, Dimension],
) -> tuple[dict, dict[str, list[int]]]:
    """Replace labels and fields; returns the snapshot before the change and the new labels."""
    before = annotation_snapshot(locked, values=_take_values(locked, dimensions))
    for name, value in fields.items():
        setattr(locked, name, value)
    locked.time_spent_seconds += max(0, min(int(elapsed_seconds or 0), MAX_ELAPSED_PER_SAVE))
    locked.version += 1  # we hold the row lock
    AnnotationValue.objects.bulk_create(
        [
            AnnotationValue(annotation=locked, dimension_id=category.dimension_id, category=category)
            for categories in chosen.values()
            for category in categories
        ]
    )
    values = {key: sorted(category.pk for category in chosen[key]) for key in dimensions if key in chosen}
    locked.current_values = values
    return before, values


def _set_status(assignment: Assignment, status: str, **times) -> None:
    """Save the assignment's new status and times (only if something changed) and move its progress counter."""
    old = assignment.status
    changed = {name: value for name, value in times.items() if getattr(assignment, name) is None}
    if status == old and not changed and not assignment.skip_reason:
        return
    assignment.status = status
    assignment.skip_reason = ""
    for name, value in changed.items():
        setattr(assignment, name, value)
    assignment.save(update_fields=["status", "skip_reason", *changed])
    rater_progress_move(assignment=assignment, old=old, new=status)


@transaction.atomic
def annotation_save_draft(
    *, annotation: Annotation, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Save work in progress (autosave). Incomplete is fine; a submitted annotation is revised by submitting."""
    locked = _lock(annotation, actor, expected_version)
    if locked.submitted_at is not None:
        raise ConflictError("This annotation is already submitted; change it and submit again to revise it.")
    dimensions = _study_dimensions(_study_id(locked.assignment))
    chosen, fields = _clean(data, dimensions)
    before, values = _write(locked, chosen, fields, elapsed_seconds, dimensions)
    locked.save(update_fields=[*fields, "time_spent_seconds", "version", "updated_at"])
    _set_status(locked.assignment, Assignment.Status.DRAFTED, started_at=timezone.now())
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
    # Lock order: study issue, then annotation. Submits of the same issue by two raters serialise here,
    # so the second one always sees the first and freezes the pair.
    study_issue = _lock_study_issue(annotation)
    locked = _lock(annotation, actor, expected_version, study_issue)
    dimensions = _study_dimensions(study_issue.study_id)
    chosen, fields = _clean(data, dimensions)
    _require_complete(chosen, fields, dimensions)
    revising = locked.submitted_at is not None
    before, values = _write(locked, chosen, fields, elapsed_seconds, dimensions)
    now = timezone.now()
    locked.submitted_at = now
    locked.save(update_fields=[*fields, "time_spent_seconds", "version", "submitted_at", "updated_at"])
    _set_status(locked.assignment, Assignment.Status.SUBMITTED, started_at=now, submitted_at=now)
    annotation_history_record(
        annotation=locked,
        actor=actor,
        action=AnnotationHistory.Action.REVISE if revising else AnnotationHistory.Action.SUBMIT,
        before=before,
        after=annotation_snapshot(locked, values=values),
    )
    frozen = _freeze_if_complete(study_issue=study_issue, actor=actor, known={locked.pk: values})
    if locked.pk in frozen:
        locked.frozen, locked.version = frozen[locked.pk]
    study_labels_changed(study_id=study_issue.study_id)
    return locked


def _freeze_if_complete(
    *, study_issue: StudyIssue, actor, known: dict[int, dict[str, list[int]]]
) -> dict[int, tuple[bool, int]]:
    """Freeze every annotation of the issue once all its raters have submitted; returns {pk: (frozen, version)}.

    `known` holds labels the caller has just written (annotation pk -> values), so they are not read again.
    """
    statuses = list(Assignment.objects.filter(study_issue_id=study_issue.pk).values_list("status", flat=True))
    if len(statuses) < 2 or any(status != Assignment.Status.SUBMITTED for status in statuses):
        return {}
    to_freeze = list(
        Annotation.objects.select_for_update()
        .filter(assignment__study_issue_id=study_issue.pk, frozen=False)
        .order_by("pk")
    )
    entries = []
    for annotation in to_freeze:
        before = annotation_snapshot(annotation, values=known.get(annotation.pk))
        annotation.frozen = True
        annotation.version += 1
        annotation.save(update_fields=["frozen", "version", "updated_at"])
        entries.append(
            AnnotationHistory(
                annotation=annotation,
                actor=actor,
                action=AnnotationHistory.Action.FREEZE,
                version=annotation.version,
                before=before,
                after={**before, "frozen": True, "version": annotation.version},
            )
        )
    AnnotationHistory.objects.bulk_create(entries)
    if to_freeze:
        # Imported here: the resolution service reopens annotations through this module.
        from annotator.services.resolutions import resolution_auto

        resolution_auto(study_issue=study_issue)
    return {annotation.pk: (annotation.frozen, annotation.version) for annotation in to_freeze}


@transaction.atomic
def annotation_reopen(*, annotation: Annotation, actor, reason: str = "") -> Annotation:
    """The owner, an adjudicator (sending an issue back) or staff lets the rater change a submitted annotation."""
    study = annotation.assignment.study_issue.study
    is_owner = StudyMember.objects.filter(
        study=study, user=actor, role__in=[StudyMember.Role.OWNER, StudyMember.Role.ADJUDICATOR]
    ).exists()
    if not (is_owner or actor.is_staff):
        raise PermissionDeniedError("Only the study's owner or an adjudicator can reopen an annotation.")
    _lock_study_issue(annotation)
    locked = (
        Annotation.objects.select_for_update(of=("self", "assignment"))
        .select_related("assignment__study_issue")
        .get(pk=annotation.pk)
    )
    before = annotation_snapshot(locked)
    locked.frozen = False
    locked.submitted_at = None
    locked.version += 1
    locked.save(update_fields=["frozen", "submitted_at", "version", "updated_at"])
    assignment = locked.assignment
    old_status = assignment.status
    assignment.status = Assignment.Status.DRAFTED
    assignment.save(update_fields=["status"])
    rater_progress_move(assignment=assignment, old=old_status, new=assignment.status)
    after = annotation_snapshot(locked)
    after["reason"] = reason
    annotation_history_record(
        annotation=locked, actor=actor, action=AnnotationHistory.Action.REOPEN, before=before, after=after
    )
    study_labels_changed(study_id=study.pk)
    return locked
