"""Resolving an issue: automatic comparison when all raters have submitted, the adjudicator's decision,
sending an issue back to the raters, taking a decision back (when the taxonomy changed under it), and the
study's anonymous-adjudication option.

Lock order, as in the annotation services: the study issue first, then the resolution (then annotations).
Resolution.version is the optimistic lock a client sends back; the row lock makes the check-and-write atomic.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from annotator.models import Annotation, Resolution, ResolutionHistory, Study, StudyIssue, StudyMember
from annotator.services.agreement.version import study_labels_changed
from annotator.services.annotations import annotation_reopen
from annotator.services.history import resolution_history_record, resolution_snapshot
from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from taxonomy.models import Category, Dimension

EXCLUDED = Resolution.EXCLUDED_KEY
METHOD_RANK = {Resolution.Method.UNANIMOUS: 0, Resolution.Method.NEGOTIATED: 1, Resolution.Method.ADJUDICATED: 2}
DECISION_METHODS = (Resolution.Method.NEGOTIATED, Resolution.Method.ADJUDICATED)
REASONS = {choice for choice in Resolution.Reason.values if choice}


@dataclass(frozen=True)
class Comparison:
    """What the raters' submitted annotations have in common (plain data, computed without the database)."""

    agreed: dict[str, list[int]] = field(default_factory=dict)
    disagreements: list[str] = field(default_factory=list)
    all_excluded: bool = False


@dataclass(frozen=True)
class RaterLabels:
    """One rater's submitted labels, as compared: category ids per dimension key, proposals, excluded."""

    values: dict[str, list[int]]
    proposals: dict[str, str]
    excluded: bool


def _norm(text: str) -> str:
    return " ".join(str(text).split()).lower()


def compare_labels(raters: Sequence[RaterLabels], *, dimension_keys: Iterable[str]) -> Comparison:
    """Agreement per dimension: the same set of categories (and, when both chose none, the same proposal).

    When every rater excluded the issue it is resolved as excluded. When only some did, that is a
    disagreement of its own ("excluded"), and the labels are still compared so the adjudicator sees them.
    """
    if raters and all(r.excluded for r in raters):
        return Comparison(all_excluded=True)
    disagreements = [EXCLUDED] if any(r.excluded for r in raters) else []
    agreed: dict[str, list[int]] = {}
    for key in dimension_keys:
        sets = {frozenset(r.values.get(key, [])) for r in raters}
        proposals = {_norm(r.proposals.get(key, "")) for r in raters}
        same = len(sets) == 1 and (next(iter(sets)) or len(proposals) == 1)
        if same:
            agreed[key] = sorted(next(iter(sets)))
        else:
            disagreements.append(key)
    return Comparison(agreed=agreed, disagreements=disagreements)


def _dimensions(study: Study) -> list[Dimension]:
    dimensions = list(study.dimensions.order_by("order", "key"))
    return dimensions or list(Dimension.objects.filter(version=study.taxonomy_version_id).order_by("order", "key"))


def _submitted_annotations(study_issue: StudyIssue) -> list[Annotation]:
    return list(
        Annotation.objects.filter(assignment__study_issue=study_issue, submitted_at__isnull=False)
        .select_related("assignment")
        .prefetch_related("values__dimension")
        .order_by("assignment_id")
    )


def rater_labels(annotation: Annotation) -> RaterLabels:
    values: dict[str, list[int]] = {}
    for value in annotation.values.all():
        values.setdefault(value.dimension.key, []).append(value.category_id)
    return RaterLabels(
        values={key: sorted(ids) for key, ids in values.items()},
        proposals=dict(annotation.proposals or {}),
        excluded=annotation.excluded,
    )


def _overall_method(methods: dict[str, str]) -> str:
    if not methods:
        return Resolution.Method.UNANIMOUS
    return max(methods.values(), key=lambda m: METHOD_RANK.get(m, 0))


def _keys(disagreements: Sequence[str]) -> str:
    return f",{','.join(disagreements)}," if disagreements else ""


def _snapshot(resolution: Resolution) -> dict:
    return {
        **resolution_snapshot(resolution),
        "methods": dict(resolution.methods),
        "status": resolution.status,
        "disagreements": resolution.disagreements,
    }


def _lock(study_issue: StudyIssue) -> tuple[StudyIssue, Resolution | None]:
    locked_issue = StudyIssue.objects.select_for_update(of=("self",)).select_related("study").get(pk=study_issue.pk)
    resolution = Resolution.objects.select_for_update(of=("self",)).filter(study_issue=locked_issue).first()
    return locked_issue, resolution


@transaction.atomic
def resolution_auto(*, study_issue: StudyIssue, actor=None) -> Resolution | None:
    """Compare the raters' frozen annotations; decide the agreed dimensions, queue the rest.

    Called when the last rater submits (inside that transaction). Run again after an issue was sent
    back or reopened, it recomputes from the new labels: a dimension the raters now agree on after
    being sent back counts as negotiated, and earlier decisions on dimensions still in dispute must be
    made again (the history keeps them). Returns None while some rater has not submitted.
    """
    locked_issue, existing = _lock(study_issue)
    annotations = _submitted_annotations(locked_issue)
    assigned = locked_issue.assignments.count()
    if len(annotations) < max(2, assigned) or not all(a.frozen for a in annotations):
        return None
    dimensions = _dimensions(locked_issue.study)
    comparison = compare_labels([rater_labels(a) for a in annotations], dimension_keys=[d.key for d in dimensions])
    resolution = _auto_write(locked_issue=locked_issue, existing=existing, comparison=comparison, actor=actor)
    study_labels_changed(study_id=locked_issue.study_id)
    return resolution


def resolution_auto_on_freeze(
    *, locked_issue: StudyIssue, raters: list[RaterLabels], dimension_keys: list[str], actor=None
) -> Resolution:
    """What resolution_auto does, for the submit that has just frozen the issue (the hot path).

    The caller holds the study issue's lock, has frozen every rater's submitted annotation and hands
    over their labels and the study's dimension keys (in display order), so nothing is read again; it
    also bumps the study's labels version itself, once, as the last write of its transaction.
    """
    existing = Resolution.objects.select_for_update(of=("self",)).filter(study_issue=locked_issue).first()
    comparison = compare_labels(raters, dimension_keys=dimension_keys)
    return _auto_write(locked_issue=locked_issue, existing=existing, comparison=comparison, actor=actor)


def _auto_write(*, locked_issue: StudyIssue, existing: Resolution | None, comparison: Comparison, actor) -> Resolution:
    discussed = set(existing.disagreements) if existing and existing.status == Resolution.Status.SENT_BACK else set()

    def method_for(key: str) -> str:
        return Resolution.Method.NEGOTIATED if key in discussed else Resolution.Method.UNANIMOUS

    if comparison.all_excluded:
        values, methods = {}, ({EXCLUDED: method_for(EXCLUDED)} if EXCLUDED in discussed else {})
    else:
        values = comparison.agreed
        methods = {key: method_for(key) for key in comparison.agreed}
    resolved = not comparison.disagreements
    fields = {
        "values": values,
        "methods": methods,
        "excluded": comparison.all_excluded,
        "disagreement_keys": _keys(comparison.disagreements),
        "disagreement_count": len(comparison.disagreements),
        "status": Resolution.Status.RESOLVED if resolved else Resolution.Status.PENDING,
        "method": _overall_method(methods) if resolved else "",
        "disagreement_reason": "",
        "decided_by": None,
        "decided_at": timezone.now(),
    }
    if existing is None:
        resolution = Resolution.objects.create(study_issue=locked_issue, **fields)
        before: dict = {}
    else:
        resolution = existing
        before = _snapshot(resolution)
        for name, value in fields.items():
            setattr(resolution, name, value)
        resolution.version += 1  # we hold the row lock
        resolution.save()
    resolution_history_record(
        resolution=resolution,
        actor=actor,
        action=ResolutionHistory.Action.AUTO,
        before=before,
        after=_snapshot(resolution),
    )
    return resolution


def resolutions_ensure(*, study: Study) -> int:
    """Create the missing resolutions of issues frozen before resolutions existed (idempotent); how many.

    One transaction per issue, not one around the loop: resolution_auto bumps the study's labels version,
    whose row stays locked until commit, and holding it while locking the next study issue would invert
    the order the other services keep (study issue first, labels version last) and deadlock with, say, a
    reopen of that issue. Each issue is checked again under its lock: another request may have created its
    resolution since the list was read (and an adjudicator decided it), and that must not be redone.
    """
    missing = list(
        StudyIssue.objects.filter(study=study, resolution__isnull=True, assignments__annotation__frozen=True)
        .distinct()
        .order_by("position")
    )
    created = 0
    for study_issue in missing:
        with transaction.atomic():
            locked_issue, existing = _lock(study_issue)
            if existing is None and resolution_auto(study_issue=locked_issue) is not None:
                created += 1
    return created


@transaction.atomic
def resolution_reset(
    *, study_issue: StudyIssue, actor, reason: str, expected_version: int, undecided: Iterable[str] = ()
) -> Resolution:
    """Take back the decision on an issue: it waits for adjudication again. Nothing is deleted.

    `undecided`: dimension keys whose decided value no longer holds (e.g. its category was split). They
    leave the values and join the disputed dimensions, so the issue is back in the adjudication queue and
    each must be decided again; the other decided dimensions keep their values. The resolution becomes
    pending with no overall method or decider, unless it is sent back: then it stays sent back, so the
    raters' discussion still counts once they agree. The history entry keeps the decision and says why.
    """
    locked_issue, resolution = _lock(study_issue)
    if not can_adjudicate(actor, locked_issue.study):
        raise PermissionDeniedError("Only the study's adjudicators and owners can take back a decision.")
    if resolution is None:
        raise NotFoundError("This issue has no resolution to take back yet.")
    if resolution.version != expected_version:
        raise ConflictError(
            f"Someone else changed this resolution meanwhile (now version {resolution.version}); "
            "reload the page and look at it again."
        )
    reason = reason.strip()
    if not reason:
        raise DomainError("Say why the decision is taken back; the adjudicator reads it in the history.")
    stale = list(dict.fromkeys(undecided))
    before = _snapshot(resolution)
    resolution.values = {key: ids for key, ids in resolution.values.items() if key not in stale}
    resolution.methods = {key: m for key, m in resolution.methods.items() if key not in stale}
    if resolution.status != Resolution.Status.SENT_BACK:
        disputed = list(dict.fromkeys([*resolution.disagreements, *stale]))
        resolution.disagreement_keys = _keys(disputed)
        resolution.disagreement_count = len(disputed)
        resolution.status = Resolution.Status.PENDING
    resolution.method = ""
    resolution.disagreement_reason = ""
    resolution.decided_by = None
    resolution.decided_at = timezone.now()
    resolution.version += 1  # we hold the row lock
    resolution.save()
    resolution_history_record(
        resolution=resolution,
        actor=actor,
        action=ResolutionHistory.Action.REVISE,
        before=before,
        after={**_snapshot(resolution), "reason": reason},
    )
    study_labels_changed(study_id=locked_issue.study_id)
    return resolution


def can_adjudicate(user, study: Study) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return StudyMember.objects.filter(
        study=study, user=user, role__in=[StudyMember.Role.OWNER, StudyMember.Role.ADJUDICATOR]
    ).exists()


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
) -> Resolution:
    """Record the final labels of an issue (or revise them): the pending dimensions must all be decided.

    Dimensions not sent keep their current value; a sent dimension that was in dispute, or whose value
    changes, takes `method`. Two adjudicators deciding at once: the second gets a ConflictError.
    """
    locked_issue, resolution = _lock(study_issue)
    annotations = _submitted_annotations(locked_issue)
    _check_adjudicator(actor=actor, study_issue=locked_issue, annotations=annotations)
    _check_current(resolution, expected_version, annotations)
    if method not in DECISION_METHODS:
        raise DomainError("Say how the label was reached: negotiated by the raters, or decided by you.", field="method")
    disputed = set(resolution.disagreements)
    if disputed and reason not in REASONS:
        raise DomainError(
            "Say why the raters differed: ambiguous issue text, guideline gap, taxonomy gap or overlap, "
            "rater error, or other.",
            field="reason",
        )
    if reason and reason not in REASONS:
        raise DomainError(f"Unknown reason '{reason}'.", field="reason")
    dimensions = {d.key: d for d in _dimensions(locked_issue.study)}
    offered = {value.category_id for a in annotations for value in a.values.all()}
    cleaned = _clean_values(values, dimensions=dimensions, offered=offered)
    before = _snapshot(resolution)
    methods = dict(resolution.methods)
    if excluded:
        new_values: dict[str, list[int]] = {}
        methods = {EXCLUDED: method} if EXCLUDED in disputed or not resolution.excluded else dict(methods)
    else:
        new_values = dict(resolution.values) if not resolution.excluded else {}
        methods.pop(EXCLUDED, None)
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
    resolution.values = {key: new_values[key] for key in sorted(new_values)}
    resolution.methods = methods
    resolution.excluded = excluded
    resolution.status = Resolution.Status.RESOLVED
    resolution.method = _overall_method(methods)
    resolution.disagreement_reason = reason
    resolution.note = note.strip()
    resolution.decided_by = actor
    resolution.decided_at = timezone.now()
    resolution.version += 1  # we hold the row lock
    resolution.save()
    resolution_history_record(
        resolution=resolution,
        actor=actor,
        action=ResolutionHistory.Action.REVISE if was_resolved else ResolutionHistory.Action.RECORD,
        before=before,
        after=_snapshot(resolution),
    )
    study_labels_changed(study_id=locked_issue.study_id)
    return resolution


@transaction.atomic
def resolution_send_back(*, study_issue: StudyIssue, actor, note: str, expected_version: int) -> Resolution:
    """Reopen every rater's annotation so they discuss the issue; it returns to the queue when all resubmit."""
    locked_issue, resolution = _lock(study_issue)
    annotations = _submitted_annotations(locked_issue)
    _check_adjudicator(actor=actor, study_issue=locked_issue, annotations=annotations)
    _check_current(resolution, expected_version, annotations)
    if not note.strip():
        raise DomainError("Tell the raters what to discuss before sending the issue back.", field="note")
    before = _snapshot(resolution)
    for annotation in annotations:
        annotation_reopen(annotation=annotation, actor=actor, reason=note.strip())
    resolution.status = Resolution.Status.SENT_BACK
    resolution.method = ""
    resolution.note = note.strip()
    resolution.version += 1
    resolution.save(update_fields=["status", "method", "note", "version"])
    resolution_history_record(
        resolution=resolution,
        actor=actor,
        action=ResolutionHistory.Action.SEND_BACK,
        before=before,
        after=_snapshot(resolution),
    )
    return resolution


@transaction.atomic
def study_set_anonymous_adjudication(*, study: Study, actor, anonymous: bool) -> Study:
    """Owners (and staff) choose whether adjudicators see the raters' names or "Rater 1" / "Rater 2"."""
    is_owner = StudyMember.objects.filter(study=study, user=actor, role=StudyMember.Role.OWNER).exists()
    if not (is_owner or actor.is_staff):
        raise PermissionDeniedError("Only the study's owner can change how adjudicators see the raters.")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    locked.anonymous_adjudication = anonymous
    locked.save(update_fields=["anonymous_adjudication", "updated_at"])
    return locked
