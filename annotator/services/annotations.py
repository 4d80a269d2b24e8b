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

from django.db import transaction
from django.utils import timezone

from annotator.models import Annotation, AnnotationHistory, Assignment, Study, StudyIssue, StudyMember
from annotator.permissions import can_see_all_labels
from annotator.services.agreement.version import study_labels_changed
from annotator.services.annotation_rows import (
    Batch,
    LockedAnnotation,
    add_history,
    add_insert,
    add_issue_statuses,
    add_progress_move,
    add_update,
    add_values,
    lock_and_take,
    lock_issue_annotations,
)
from annotator.services.first_submissions import first_submission_record
from annotator.services.history import annotation_history_record, annotation_snapshot
from annotator.services.progress import rater_progress_move, rater_progress_recount_rater
from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from taxonomy.catalogue import CategoryInfo, DimensionInfo, version_catalogue
from taxonomy.models import Dimension

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


def _catalogue(locked: LockedAnnotation) -> tuple[dict[str, DimensionInfo], dict[int, CategoryInfo]]:
    """The study's dimensions by key (all of its version's when it names none) and its version's categories."""
    catalogue = version_catalogue(version_id=locked.taxonomy_version_id, published_at=locked.version_published_at)
    return catalogue.dimensions_by_key(locked.study_dimension_ids), catalogue.categories


def _clean(
    data: AnnotationInput, dimensions: dict[str, DimensionInfo], categories: dict[int, CategoryInfo]
) -> tuple[dict[str, list[CategoryInfo]], dict]:
    """Check the input against the study's dimensions and taxonomy version; return categories and fields."""
    unknown = sorted(set(data.values) - set(dimensions))
    if unknown:
        raise DomainError(f"This study does not label the dimension(s) {', '.join(unknown)}.", field="values")
    chosen: dict[str, list[CategoryInfo]] = {}
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


def _require_complete(
    chosen: dict[str, list[CategoryInfo]], fields: dict, dimensions: dict[str, DimensionInfo]
) -> None:
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


def _lock(annotation: Annotation | int, actor, expected_version: int, *, submitting: bool) -> LockedAnnotation:
    """The annotation, locked and checked (its labels taken out): the actor is its rater, it is not frozen,
    the version is current. Anyone else is answered as the selectors would: 404 unless they may see it."""
    pk = annotation if isinstance(annotation, int) else annotation.pk
    # Lock order everywhere: study issue (a submit), annotation, assignment, counter. The assignment is
    # locked too: its status moves a progress counter, so it must not change under us (a skip in another tab).
    locked = lock_and_take(annotation_id=pk, study_issue_first=submitting)
    if locked is None:
        raise NotFoundError("No such annotation.")
    assignment = locked.annotation.assignment
    if assignment.rater_id != actor.pk:
        study = Study.objects.get(pk=assignment.study_issue.study_id)
        if can_see_all_labels(actor, study):
            raise PermissionDeniedError("Only the rater assigned to this issue can change this annotation.")
        raise NotFoundError("No such annotation.")
    if locked.annotation.frozen:
        raise ConflictError(FROZEN_MESSAGE)
    if locked.annotation.version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    assignment.rater = actor  # checked above: saves a query for whoever shows the rater's name
    return locked


def _values_by_key(pairs: list[tuple[int, int]], dimensions: dict[str, DimensionInfo]) -> dict[str, list[int]]:
    """(dimension id, category id) pairs as sorted category ids per dimension key."""
    keys = {dimension.pk: key for key, dimension in dimensions.items()}
    unknown = {dimension_id for dimension_id, _ in pairs if dimension_id not in keys}
    if unknown:  # labels of a dimension the study no longer uses: still part of the history
        keys.update(Dimension.objects.filter(pk__in=unknown).values_list("pk", "key"))
    values: dict[str, list[int]] = {}
    for dimension_id, category_id in pairs:
        values.setdefault(keys[dimension_id], []).append(category_id)
    return {key: sorted(ids) for key, ids in values.items()}


def _save(
    locked: LockedAnnotation,
    *,
    actor,
    chosen: dict[str, list[CategoryInfo]],
    fields: dict,
    elapsed_seconds: int,
    dimensions: dict[str, DimensionInfo],
    status: str,
    action: str,
    now,
) -> list[tuple]:
    """Write the new labels and fields, the assignment's status and counter, and the history entry.

    Returns the issue's assignment statuses, read after the writes (see annotation_rows.add_issue_statuses).
    """
    annotation = locked.annotation
    before = annotation_snapshot(annotation, values=_values_by_key(locked.old_values, dimensions))
    for name, value in fields.items():
        setattr(annotation, name, value)
    annotation.time_spent_seconds += max(0, min(int(elapsed_seconds or 0), MAX_ELAPSED_PER_SAVE))
    annotation.version += 1  # we hold the row lock
    annotation.updated_at = now
    changed = [*fields, "time_spent_seconds", "version", "updated_at"]
    if status == Assignment.Status.SUBMITTED:
        annotation.submitted_at = now
        changed.append("submitted_at")
    values = {key: sorted(category.pk for category in chosen[key]) for key in dimensions if key in chosen}
    annotation.current_values = values

    batch = Batch()
    add_values(
        batch,
        annotation_id=annotation.pk,
        pairs=[(category.dimension_id, category.pk) for categories in chosen.values() for category in categories],
    )
    add_update(batch, annotation, changed)
    assignment = annotation.assignment
    old_status = assignment.status
    times = {"started_at": now, **({"submitted_at": now} if status == Assignment.Status.SUBMITTED else {})}
    unset = [name for name in times if getattr(assignment, name) is None]
    if status != old_status or unset or assignment.skip_reason:
        assignment.status, assignment.skip_reason = status, ""
        for name in unset:
            setattr(assignment, name, times[name])
        add_update(batch, assignment, ["status", "skip_reason", *unset])
    if status != old_status:
        add_progress_move(
            batch, study_issue=assignment.study_issue, rater_id=assignment.rater_id, old=old_status, new=status
        )
    add_history(
        batch,
        annotation=annotation,
        actor_id=actor.pk,
        action=action,
        at=now,
        before=before,
        after=annotation_snapshot(annotation, values=values),
    )
    add_issue_statuses(batch, study_issue=assignment.study_issue, rater_id=assignment.rater_id)
    statuses = batch.run()
    if status != old_status and statuses and not statuses[0][1]:
        # Assignments written by some other path (e.g. an import) without counters: count them now.
        rater_progress_recount_rater(study_issue=assignment.study_issue, rater_id=assignment.rater_id)
    return statuses


@transaction.atomic
def annotation_save_draft(
    *, annotation: Annotation | int, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Save work in progress (autosave). Incomplete is fine; a submitted annotation is revised by submitting.

    `annotation` is the annotation or its id; the returned annotation carries its new labels (`current_values`).
    """
    locked = _lock(annotation, actor, expected_version, submitting=False)
    if locked.annotation.submitted_at is not None:
        raise ConflictError("This annotation is already submitted; change it and submit again to revise it.")
    dimensions, categories = _catalogue(locked)
    chosen, fields = _clean(data, dimensions, categories)
    _save(
        locked,
        actor=actor,
        chosen=chosen,
        fields=fields,
        elapsed_seconds=elapsed_seconds,
        dimensions=dimensions,
        status=Assignment.Status.DRAFTED,
        action=AnnotationHistory.Action.DRAFT,
        now=timezone.now(),
    )
    return locked.annotation


@transaction.atomic
def annotation_submit(
    *, annotation: Annotation | int, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Submit (or, if submitted before, revise). When every rater of the issue has submitted, all freeze."""
    # Lock order: study issue, then annotation. Submits of the same issue by two raters serialise there,
    # so the second one always sees the first and freezes the pair.
    locked = _lock(annotation, actor, expected_version, submitting=True)
    dimensions, categories = _catalogue(locked)
    chosen, fields = _clean(data, dimensions, categories)
    _require_complete(chosen, fields, dimensions)
    submitted = locked.annotation
    revising = submitted.submitted_at is not None
    statuses = _save(
        locked,
        actor=actor,
        chosen=chosen,
        fields=fields,
        elapsed_seconds=elapsed_seconds,
        dimensions=dimensions,
        status=Assignment.Status.SUBMITTED,
        action=AnnotationHistory.Action.REVISE if revising else AnnotationHistory.Action.SUBMIT,
        now=timezone.now(),
    )
    if not revising:  # a resubmit after a send-back finds the first one kept and leaves it
        first_submission_record(
            annotation=submitted,
            values=[(category.dimension_id, category.pk) for categories in chosen.values() for category in categories],
            submitted_at=submitted.submitted_at,
        )
    study_issue = submitted.assignment.study_issue
    if len(statuses) >= 2 and all(status == Assignment.Status.SUBMITTED for status, _ in statuses):
        frozen = _freeze(study_issue=study_issue, actor=actor, dimensions=dimensions, now=timezone.now())
        if submitted.pk in frozen:
            submitted.frozen, submitted.version = frozen[submitted.pk]
    study_labels_changed(study_id=study_issue.study_id)
    return submitted


def _freeze(
    *, study_issue: StudyIssue, actor, dimensions: dict[str, DimensionInfo], now
) -> dict[int, tuple[bool, int]]:
    """Freeze every annotation of the issue (all its raters have submitted) and create or update its adjudication
    record from their labels; returns {pk: (frozen, version)} of the annotations it froze.

    One statement reads (and locks) the issue's annotations with their labels, one writes the freezes and their
    history; the resolution service compares the labels it is handed instead of reading them again.
    """
    # Imported here: the resolution service reopens annotations through this module.
    from annotator.services.resolutions import RaterLabels, resolution_auto_on_freeze, resolution_prepare_on_freeze

    issue_annotations, resolution_id = lock_issue_annotations(study_issue_id=study_issue.pk)
    batch = Batch()
    frozen: dict[int, tuple[bool, int]] = {}
    raters = []
    for annotation, pairs in issue_annotations:
        values = _values_by_key(pairs, dimensions)
        raters.append(
            RaterLabels(values=values, proposals=dict(annotation.proposals or {}), excluded=annotation.excluded)
        )
        if annotation.frozen:
            continue
        before = annotation_snapshot(annotation, values=values)
        annotation.frozen, annotation.updated_at = True, now
        annotation.version += 1  # we hold the row lock
        add_update(batch, annotation, ["frozen", "version", "updated_at"])
        add_history(
            batch,
            annotation=annotation,
            actor_id=actor.pk,
            action=AnnotationHistory.Action.FREEZE,
            at=now,
            before=before,
            after={**before, "frozen": True, "version": annotation.version},
        )
        frozen[annotation.pk] = (annotation.frozen, annotation.version)
    if not frozen:
        return {}
    keys = list(dimensions)
    if resolution_id is not None:  # sent back or reopened before: the service revises the resolution it has
        batch.run()
        resolution_auto_on_freeze(locked_issue=study_issue, raters=raters, dimension_keys=keys, actor=actor)
        return frozen
    # The usual case, the issue's first resolution: written with the freezes, its history entry right after.
    resolution, history = resolution_prepare_on_freeze(
        locked_issue=study_issue, raters=raters, dimension_keys=keys, actor=actor
    )
    add_insert(batch, resolution)
    resolution.pk = history.resolution_id = batch.run()[0][0]
    entry = Batch()
    add_insert(entry, history)
    entry.run()
    return frozen


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
