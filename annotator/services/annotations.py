"""Saving, submitting, freezing and reopening one rater's annotation of one issue.

Lock order, in every service: the study issue (a submit, a reopen), the annotation, its assignment, the
rater's progress counter. Two raters submitting one issue serialise on the study issue, so the second
always sees the first and freezes the pair. A draft locks only the annotation and its assignment: it
refuses a submitted annotation, so it can never complete an issue or race a freeze. Every write checks
the version the client saw (optimistic locking), records a history entry and keeps the rater's progress
counters in step when the assignment's status changes.

Autosave is the most frequent write of the product, so each step reads what it needs once: the locking
read brings the assignment, study issue, study and taxonomy version along, the labels are replaced by
difference, and the returned annotation carries its new labels (`current_values`) so a caller can answer
without reading them again.
"""

from dataclasses import dataclass, field
from functools import cache

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Prefetch, QuerySet
from django.utils import timezone

from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    FirstSubmission,
    Study,
    StudyIssue,
    StudyMember,
)
from annotator.permissions import rater_role_held, require_assigned_rater
from annotator.selectors.studies import study_dimension_ids
from annotator.services.agreement.version import study_labels_changed
from annotator.services.first_submissions import first_submission_record
from annotator.services.history import (
    annotation_history_entry,
    annotation_history_record,
    annotation_history_write,
    annotation_snapshot,
)
from annotator.services.progress import rater_progress_move
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
# The longest texts a rater may write, in characters, whichever surface sends them: each is copied into the history's
# snapshots and, on a first submit, into the first submission, which keeps it for good.
NOTE_MAX_CHARS = 20_000
EXCLUDED_TEXT_MAX_CHARS = 2_000
PROPOSAL_MAX_CHARS = 500


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
    proposals = {key: text.strip() for key, text in sorted(data.proposals.items()) if text and text.strip()}
    too_long = [key for key, text in proposals.items() if len(text) > PROPOSAL_MAX_CHARS]
    if too_long:
        raise DomainError(
            f"A proposed category is at most {PROPOSAL_MAX_CHARS:,} characters: shorten the one for "
            f"'{dimensions[too_long[0]].name}'.",
            field="proposals",
        )
    both = [key for key in proposals if key in chosen and not dimensions[key].multi_valued]
    if both:
        dimension = dimensions[both[0]]
        raise DomainError(
            f"'{dimension.name}' takes a single category: either choose '{chosen[both[0]][0].name}' or propose "
            f'a new category ("{proposals[both[0]]}"), not both.',
            field="proposals",
        )
    excluded_reason = data.excluded_reason if data.excluded else ""
    if data.excluded and excluded_reason not in {
        Annotation.ExcludedReason.NOT_A_BUG,
        Annotation.ExcludedReason.OUT_OF_SCOPE,
    }:
        raise DomainError("Say why the issue is excluded: not a bug, or out of scope.", field="excluded_reason")
    if data.confidence is not None and data.confidence not in (1, 2, 3):
        raise DomainError("Confidence is 1 (low), 2 (medium) or 3 (high).", field="confidence")
    if len(data.note) > NOTE_MAX_CHARS:
        raise DomainError(f"A note is at most {NOTE_MAX_CHARS:,} characters.", field="note")
    if data.excluded and len(data.excluded_text.strip()) > EXCLUDED_TEXT_MAX_CHARS:
        raise DomainError(
            f"The exclusion details are at most {EXCLUDED_TEXT_MAX_CHARS:,} characters.", field="excluded_text"
        )
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


def _lock_study_issue(annotation: Annotation | int) -> None:
    """Lock the annotation's study issue (first in the lock order); NotFoundError when there is none."""
    pk = annotation if isinstance(annotation, int) else annotation.pk
    # `annotation__id`, not `annotation`: an id lookup answers "none" for an id beyond the column's range (the
    # relation lookup would send it to the database). order_by(): the default ordering would add a join.
    issue = StudyIssue.objects.filter(assignments__annotation__id=pk)
    locked = issue.select_for_update(of=("self",)).order_by()
    if not list(locked.values_list("pk", flat=True)):
        raise NotFoundError("No such annotation.")


def _lock(annotation: Annotation | int, actor, expected_version: int, *, submitting: bool) -> Annotation:
    """The annotation and its assignment, locked and checked: the actor is its rater and still a rater of the
    study, it is not frozen, the version is current. Anyone else is answered as the selectors would
    (annotator.permissions.require_assigned_rater).

    The assignment is locked too: its status moves a progress counter, so it must not change under us (a
    skip in another tab). Its study issue, study and taxonomy version come along (validation needs them).
    """
    pk = annotation if isinstance(annotation, int) else annotation.pk
    if submitting:
        _lock_study_issue(pk)
    try:
        locked = _locking_query(submitting=submitting).get(pk=pk)
    except Annotation.DoesNotExist:
        raise NotFoundError("No such annotation.") from None
    assignment = locked.assignment
    require_assigned_rater(
        actor, assignment.study_issue.study, rater_id=assignment.rater_id, rater_role_held=locked.rater_role_held
    )
    if locked.frozen:
        raise ConflictError(FROZEN_MESSAGE)
    if locked.version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    assignment.rater = actor  # checked above: saves a query for whoever shows the rater's name
    return locked


# What the writes read of the annotation's relations; the study's guidelines, descriptions and changelogs
# (long Markdown texts) stay in the database. Another field is still read when used, with one more query.
LOCKED_FIELDS = (
    *(field.name for field in Annotation._meta.concrete_fields),
    "assignment__study_issue",
    "assignment__rater",
    "assignment__status",
    "assignment__skip_reason",
    "assignment__started_at",
    "assignment__submitted_at",
    "assignment__study_issue__study",
    "assignment__study_issue__issue",
    "assignment__study_issue__round",
    "assignment__study_issue__study__updated_at",
    "assignment__study_issue__study__taxonomy_version",
    "assignment__study_issue__study__taxonomy_version__published_at",
)


@cache
def _locking_query(*, submitting: bool) -> QuerySet[Annotation]:
    """The locking read of `_lock`, built once per process: every request clones it and adds its id.

    Building it (resolving the joins of the related objects and the subqueries' outer references) costs about
    as much as running it, and it never changes; a clone with one more filter is cheap.
    """
    annotations = (
        Annotation.objects.select_for_update(of=("self", "assignment"))
        .select_related("assignment__study_issue__study__taxonomy_version")
        .only(*LOCKED_FIELDS)
        .annotate(rater_role_held=rater_role_held(study="assignment__study_issue__study", user="assignment__rater"))
        .order_by()
    )
    if not submitting:
        return annotations
    # Whether this submit completes the issue: read under the study issue's lock, so every other rater's
    # submit has committed or waits behind ours. Ours is the one status that changes before the freeze.
    others = Assignment.objects.filter(study_issue=OuterRef("assignment__study_issue")).exclude(
        pk=OuterRef("assignment")
    )
    return annotations.annotate(
        others_open=Exists(others.exclude(status=Assignment.Status.SUBMITTED)),
        first_submitted=Exists(FirstSubmission.objects.filter(annotation=OuterRef("pk"))),
    )


def _catalogue(study: Study) -> tuple[dict[str, DimensionInfo], dict[int, CategoryInfo]]:
    """The study's dimensions by key (all of its version's when it names none) and its version's categories."""
    version = study.taxonomy_version
    catalogue = version_catalogue(version_id=version.pk, published_at=version.published_at)
    return catalogue.dimensions_by_key(list(study_dimension_ids(study=study))), catalogue.categories


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
    annotation: Annotation,
    *,
    actor,
    chosen: dict[str, list[CategoryInfo]],
    fields: dict,
    elapsed_seconds: int,
    dimensions: dict[str, DimensionInfo],
    status: str,
    action: str,
) -> AnnotationHistory:
    """Write the new labels and fields, the assignment's status and counter; return the history entry of the
    change, for the caller to write (a submit that freezes the issue writes it with the freeze's entries)."""
    old = list(
        AnnotationValue.objects.filter(annotation=annotation)
        .order_by()
        .values_list("pk", "dimension_id", "category_id")
    )
    before = annotation_snapshot(annotation, values=_values_by_key([(d, c) for _, d, c in old], dimensions))
    # Only the labels that changed are written: an autosave of the note alone writes none.
    new = {category.pk: category.dimension_id for categories in chosen.values() for category in categories}
    gone = [pk for pk, _, category_id in old if category_id not in new]
    if gone:
        AnnotationValue.objects.filter(pk__in=gone).delete()
    kept = {category_id for _, _, category_id in old}
    AnnotationValue.objects.bulk_create(
        AnnotationValue(annotation=annotation, dimension_id=dimension_id, category_id=category_id)
        for category_id, dimension_id in new.items()
        if category_id not in kept
    )

    now = timezone.now()
    for name, value in fields.items():
        setattr(annotation, name, value)
    annotation.time_spent_seconds += max(0, min(int(elapsed_seconds or 0), MAX_ELAPSED_PER_SAVE))
    annotation.version += 1  # we hold the row lock
    changed = [*fields, "time_spent_seconds", "version", "updated_at"]
    if status == Assignment.Status.SUBMITTED:
        annotation.submitted_at = now
        changed.append("submitted_at")
    annotation.save(update_fields=changed)
    values = {key: sorted(category.pk for category in chosen[key]) for key in dimensions if key in chosen}
    annotation.current_values = values

    assignment = annotation.assignment
    old_status = assignment.status
    times = {"started_at": now, **({"submitted_at": now} if status == Assignment.Status.SUBMITTED else {})}
    unset = [name for name in times if getattr(assignment, name) is None]
    if status != old_status or unset or assignment.skip_reason:
        assignment.status, assignment.skip_reason = status, ""
        for name in unset:
            setattr(assignment, name, times[name])
        assignment.save(update_fields=["status", "skip_reason", *unset])
    rater_progress_move(assignment=assignment, old=old_status, new=status)
    return annotation_history_entry(
        annotation=annotation,
        actor=actor,
        action=action,
        before=before,
        after=annotation_snapshot(annotation, values=values),
    )


@transaction.atomic
def annotation_save_draft(
    *, annotation: Annotation | int, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Save work in progress (autosave). Incomplete is fine; a submitted annotation is revised by submitting.

    `annotation` is the annotation or its id; the returned annotation carries its new labels (`current_values`).
    """
    locked = _lock(annotation, actor, expected_version, submitting=False)
    if locked.submitted_at is not None:
        raise ConflictError("This annotation is already submitted; change it and submit again to revise it.")
    dimensions, categories = _catalogue(locked.assignment.study_issue.study)
    chosen, fields = _clean(data, dimensions, categories)
    entry = _save(
        locked,
        actor=actor,
        chosen=chosen,
        fields=fields,
        elapsed_seconds=elapsed_seconds,
        dimensions=dimensions,
        status=Assignment.Status.DRAFTED,
        action=AnnotationHistory.Action.DRAFT,
    )
    annotation_history_write([entry])
    return locked


@transaction.atomic
def annotation_submit(
    *, annotation: Annotation | int, actor, data: AnnotationInput, expected_version: int, elapsed_seconds: int = 0
) -> Annotation:
    """Submit (or, if submitted before, revise). When every rater of the issue has submitted, all freeze: a
    single-coded issue freezes on its one rater's submit, and its labels become the final label."""
    locked = _lock(annotation, actor, expected_version, submitting=True)
    study_issue = locked.assignment.study_issue
    dimensions, categories = _catalogue(study_issue.study)
    chosen, fields = _clean(data, dimensions, categories)
    _require_complete(chosen, fields, dimensions)
    revising = locked.submitted_at is not None
    entry = _save(
        locked,
        actor=actor,
        chosen=chosen,
        fields=fields,
        elapsed_seconds=elapsed_seconds,
        dimensions=dimensions,
        status=Assignment.Status.SUBMITTED,
        action=AnnotationHistory.Action.REVISE if revising else AnnotationHistory.Action.SUBMIT,
    )
    if not revising:  # a resubmit after a send-back finds the first one kept and leaves it
        first_submission_record(
            annotation=locked,
            values=[(category.dimension_id, category.pk) for categories in chosen.values() for category in categories],
            submitted_at=locked.submitted_at,
            already_recorded=locked.first_submitted,
        )
    # The last rater of the issue to submit freezes it; a single-coded issue's one rater is the last.
    if locked.others_open:
        annotation_history_write([entry])
    else:
        _freeze(study_issue=study_issue, submitted=locked, actor=actor, dimensions=dimensions, submit_entry=entry)
    study_labels_changed(study_id=study_issue.study_id)
    return locked


def _freeze(
    *,
    study_issue: StudyIssue,
    submitted: Annotation,
    actor,
    dimensions: dict[str, DimensionInfo],
    submit_entry: AnnotationHistory,
) -> None:
    """Freeze every annotation of the issue (all its raters have submitted) and write its adjudication record
    from their labels, as resolution_auto would. `submitted` (already locked) gets its new state; the history
    entry of its submit is written first, in the INSERT of the freeze's entries."""
    # Imported here: the resolution services reopen annotations through this module.
    from annotator.services.resolutions import RaterLabels, resolution_auto_on_freeze

    issue_annotations = list(
        Annotation.objects.select_for_update(of=("self",))
        .filter(assignment__study_issue=study_issue)
        .prefetch_related(Prefetch("values", queryset=AnnotationValue.objects.order_by()))
        .order_by("assignment_id")
    )
    now = timezone.now()
    raters, history = [], []
    for annotation in issue_annotations:
        values = _values_by_key([(v.dimension_id, v.category_id) for v in annotation.values.all()], dimensions)
        raters.append(
            RaterLabels(
                values=values,
                proposals=dict(annotation.proposals or {}),
                excluded=annotation.excluded,
                annotation_id=annotation.pk,
            )
        )
        if annotation.frozen:
            continue
        before = annotation_snapshot(annotation, values=values)
        version = annotation.version + 1
        history.append(
            AnnotationHistory(
                annotation=annotation,
                actor=actor,
                action=AnnotationHistory.Action.FREEZE,
                version=version,
                before=before,
                after={**before, "frozen": True, "version": version},
            )
        )
    annotation_history_write([submit_entry, *history])
    if not history:
        return
    # One UPDATE for every rater's annotation; each keeps its own version, bumped under the row locks above.
    Annotation.objects.filter(pk__in=[entry.annotation_id for entry in history]).update(
        frozen=True, version=F("version") + 1, updated_at=now
    )
    if any(entry.annotation_id == submitted.pk for entry in history):
        submitted.frozen, submitted.version, submitted.updated_at = True, submitted.version + 1, now
    resolution_auto_on_freeze(
        locked_issue=study_issue,
        raters=raters,
        dimension_keys=list(dimensions),
        actor=actor,
        dimension_ids={key: info.pk for key, info in dimensions.items()},
    )


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
