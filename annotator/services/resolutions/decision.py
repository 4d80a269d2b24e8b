"""The adjudicator's decision on an issue: record (or revise) its final labels, or send it back to the raters."""

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from annotator.models import Annotation, Resolution, ResolutionHistory, StudyIssue
from annotator.selectors.resolution_values import ProposedLabel, resolution_labels_fresh
from annotator.selectors.studies import study_dimensions
from annotator.services.agreement.version import study_labels_changed
from annotator.services.annotations import annotation_reopen
from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from taxonomy.models import Category, Dimension

from .adjudicators import can_adjudicate
from .comparison import EXCLUDED, open_disagreements, overall_method
from .rows import lock_issue_resolution, resolution_save_revision, resolution_state_snapshot, submitted_annotations

DECISION_METHODS = (Resolution.Method.NEGOTIATED, Resolution.Method.ADJUDICATED)
REASONS = {choice for choice in Resolution.Reason.values if choice}


def _check_adjudicator(*, actor, study_issue: StudyIssue, annotations: Sequence[Annotation]) -> None:
    if not can_adjudicate(actor, study_issue.study):
        raise PermissionDeniedError("Only the study's adjudicators and owners can settle disagreements.")
    if any(a.assignment.rater_id == actor.pk for a in annotations):
        raise PermissionDeniedError("You labelled this issue yourself; another adjudicator has to settle it.")


def _check_current(resolution: Resolution | None, expected_version: int, annotations: Sequence[Annotation]) -> None:
    if resolution is None:
        raise NotFoundError("Nothing to resolve yet: every rater of this issue must submit first.")
    if resolution.version != expected_version:
        who = resolution.decided_by or "the automatic comparison"
        raise ConflictError(
            f"Someone else changed this resolution while you were deciding (now version {resolution.version}, "
            f"by {who}); reload the page to see their decision before you change it."
        )
    if resolution.status == Resolution.Status.SENT_BACK or not all(a.frozen for a in annotations):
        raise ConflictError(
            "This issue is back with its raters; it returns to the queue when they have all submitted again."
        )


def _clean_values(
    values: dict[str, list[int]], *, dimensions: dict[str, Dimension], offered: set[int]
) -> dict[str, list[int]]:
    """Check each category belongs to its dimension and may be chosen; a deprecated one only if a rater chose it."""
    unknown = sorted(set(values) - set(dimensions))
    if unknown:
        raise DomainError(f"This study does not label the dimension(s) {', '.join(unknown)}.", field="values")
    wanted = {int(pk) for ids in values.values() for pk in ids}
    categories = {c.pk: c for c in Category.objects.filter(pk__in=wanted, dimension__in=list(dimensions.values()))}
    cleaned: dict[str, list[int]] = {}
    for key, ids in values.items():
        dimension = dimensions[key]
        picked = sorted(dict.fromkeys(int(pk) for pk in ids))
        for pk in picked:
            category = categories.get(pk)
            if category is None or category.dimension_id != dimension.pk:
                raise DomainError(
                    f"Category {pk} is not a category of '{dimension.name}' in this study's taxonomy version.",
                    field="values",
                )
            if not category.selectable or (category.deprecated and pk not in offered):
                raise DomainError(
                    f"'{category.name}' groups other categories or is deprecated; choose a category under it.",
                    field="values",
                )
        if len(picked) > 1 and not dimension.multi_valued:
            raise DomainError(f"'{dimension.name}' takes a single category; choose one.", field="values")
        cleaned[key] = picked
    return cleaned


@transaction.atomic
def resolution_record(
    *,
    study_issue: StudyIssue,
    actor,
    values: dict[str, list[int]],
    excluded: bool = False,
    method: str,
    reason: str,
    note: str = "",
    expected_version: int,
    proposals: dict[str, int] | None = None,
) -> Resolution:
    """Record the final labels of an issue (or revise them): the pending dimensions must all be decided.

    Dimensions not sent keep their current value; a sent dimension that was in dispute, or whose value
    changes, takes `method`. Two adjudicators deciding at once: the second gets a ConflictError.
    `proposals`: {dimension key: id of a rater's annotation} to settle that dimension on the proposal that rater
    made in it (stored as a proposal-valued final label until the card board sorts it into a category).
    """
    locked_issue, resolution = lock_issue_resolution(study_issue)
    annotations = submitted_annotations(locked_issue)
    _check_adjudicator(actor=actor, study_issue=locked_issue, annotations=annotations)
    _check_current(resolution, expected_version, annotations)
    if method not in DECISION_METHODS:
        raise DomainError("Say how the label was reached: negotiated by the raters, or decided by you.", field="method")
    # Disagreements are sticky (see auto._auto_fields): those the raters settled by discussion already have
    # their method; only the open ones are decided here.
    disputed = set(open_disagreements(resolution))
    if resolution.disagreements and reason not in REASONS:
        raise DomainError(
            "Say why the raters differed: ambiguous issue text, guideline gap, taxonomy gap or overlap, "
            "rater error, or other.",
            field="reason",
        )
    if reason and reason not in REASONS:
        raise DomainError(f"Unknown reason '{reason}'.", field="reason")
    dimensions = {d.key: d for d in study_dimensions(study=locked_issue.study)}
    offered = {value.category_id for a in annotations for value in a.values.all()}
    cleaned: dict[str, list] = dict(_clean_values(values, dimensions=dimensions, offered=offered))
    for key, proposed in _clean_proposals(proposals or {}, dimensions=dimensions, annotations=annotations).items():
        if cleaned.get(key) and not dimensions[key].multi_valued:
            raise DomainError(
                f"'{dimensions[key].name}' takes a single value: choose a category or the rater's proposal, not both.",
                field="proposals",
            )
        cleaned[key] = [*cleaned.get(key, []), proposed]
    before = resolution_state_snapshot(resolution)
    methods = dict(resolution.methods)
    if excluded:
        new_values: dict[str, list] = {}
        methods = {EXCLUDED: method} if EXCLUDED in disputed or not resolution.excluded else dict(methods)
    else:
        new_values = resolution_labels_fresh(resolution) if not resolution.excluded else {}
        if EXCLUDED in disputed or resolution.excluded:
            methods[EXCLUDED] = method
        for key, ids in cleaned.items():
            if key in disputed or new_values.get(key) != ids or key not in new_values:
                methods[key] = method
            new_values[key] = ids
        undecided = [d.name for key, d in dimensions.items() if key in disputed and key not in new_values]
        empty_required = [d.name for key, d in dimensions.items() if d.required and not new_values.get(key)]
        if undecided or empty_required:
            names = ", ".join(dict.fromkeys([*undecided, *empty_required]))
            raise DomainError(f"Choose the final category for {names} — or exclude the issue.", field="values")
        methods = {key: m for key, m in methods.items() if key in new_values or key == EXCLUDED}
    was_resolved = resolution.status == Resolution.Status.RESOLVED
    resolution.methods = methods
    resolution.excluded = excluded
    resolution.status = Resolution.Status.RESOLVED
    resolution.method = overall_method(methods)
    resolution.disagreement_reason = reason
    resolution.note = note.strip()
    resolution.decided_by = actor
    resolution.decided_at = timezone.now()
    action = ResolutionHistory.Action.REVISE if was_resolved else ResolutionHistory.Action.RECORD
    resolution_save_revision(
        resolution,
        actor=actor,
        action=action,
        before=before,
        labels={key: new_values[key] for key in sorted(new_values)},
        version_id=locked_issue.study.taxonomy_version_id,
    )
    study_labels_changed(study_id=locked_issue.study_id)
    return resolution


def _clean_proposals(
    proposals: dict[str, int], *, dimensions: dict[str, Dimension], annotations: Sequence[Annotation]
) -> dict[str, ProposedLabel]:
    """Each chosen proposal: a dimension of the study, and a proposal one of this issue's raters made in it."""
    unknown = sorted(set(proposals) - set(dimensions))
    if unknown:
        raise DomainError(f"This study does not label the dimension(s) {', '.join(unknown)}.", field="proposals")
    by_id = {a.pk: a for a in annotations}
    cleaned = {}
    for key, annotation_id in proposals.items():
        try:
            annotation = by_id.get(int(annotation_id))
        except (TypeError, ValueError):
            annotation = None
        text = ((annotation.proposals or {}).get(key) or "").strip() if annotation is not None else ""
        if not text:
            raise DomainError(
                f"No rater of this issue proposed a category for '{dimensions[key].name}' in that annotation.",
                field="proposals",
            )
        cleaned[key] = ProposedLabel(text[:500], annotation.pk)
    return cleaned


@transaction.atomic
def resolution_send_back(*, study_issue: StudyIssue, actor, note: str, expected_version: int) -> Resolution:
    """Reopen every rater's annotation so they discuss the issue; it returns to the queue when all resubmit."""
    locked_issue, resolution = lock_issue_resolution(study_issue)
    annotations = submitted_annotations(locked_issue)
    _check_adjudicator(actor=actor, study_issue=locked_issue, annotations=annotations)
    _check_current(resolution, expected_version, annotations)
    if not note.strip():
        raise DomainError("Tell the raters what to discuss before sending the issue back.", field="note")
    before = resolution_state_snapshot(resolution)
    for annotation in annotations:
        annotation_reopen(annotation=annotation, actor=actor, reason=note.strip())
    resolution.status = Resolution.Status.SENT_BACK
    resolution.method = ""
    resolution.note = note.strip()
    resolution_save_revision(
        resolution,
        actor=actor,
        action=ResolutionHistory.Action.SEND_BACK,
        before=before,
        update_fields=["status", "method", "note"],
    )
    return resolution
