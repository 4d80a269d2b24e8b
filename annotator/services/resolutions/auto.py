"""The automatic comparison: when all raters have submitted, the agreed dimensions are decided and the rest
wait for the adjudicator; and the backfill of issues frozen before resolutions existed."""

from django.db import transaction
from django.utils import timezone

from annotator.models import Resolution, ResolutionHistory, ResolutionValue, Study, StudyIssue
from annotator.selectors.studies import study_dimensions
from annotator.services.agreement.version import study_labels_changed
from annotator.services.history import resolution_history_record

from .comparison import (
    EXCLUDED,
    Comparison,
    RaterLabels,
    compare_labels,
    disagreement_keys_text,
    overall_method,
    rater_labels,
)
from .rows import (
    lock_issue_resolution,
    resolution_save_revision,
    resolution_state_snapshot,
    submitted_annotations,
    version_dimension_ids,
)
from .values import value_rows


@transaction.atomic
def resolution_auto(*, study_issue: StudyIssue, actor=None) -> Resolution | None:
    """Compare the raters' frozen annotations; decide the agreed dimensions, queue the rest.

    Called when the last rater submits (inside that transaction). Run again after an issue was sent
    back or reopened, it recomputes from the new labels: a dimension the raters now agree on after
    being in dispute counts as negotiated (and stays listed as a disagreement), and earlier decisions on
    dimensions still in dispute must be made again (the history keeps them). Returns None while some
    rater has not submitted.
    """
    locked_issue, existing = lock_issue_resolution(study_issue)
    annotations = submitted_annotations(locked_issue)
    assigned = locked_issue.assignments.count()
    if not annotations or len(annotations) < assigned or not all(a.frozen for a in annotations):
        return None
    dimensions = study_dimensions(study=locked_issue.study)
    comparison = compare_labels([rater_labels(a) for a in annotations], dimension_keys=[d.key for d in dimensions])
    resolution = _auto_write(
        locked_issue=locked_issue,
        existing=existing,
        comparison=comparison,
        actor=actor,
        single=len(annotations) == 1,
    )
    study_labels_changed(study_id=locked_issue.study_id)
    return resolution


def resolution_auto_on_freeze(
    *,
    locked_issue: StudyIssue,
    raters: list[RaterLabels],
    dimension_keys: list[str],
    actor=None,
    dimension_ids: dict[str, int] | None = None,
) -> Resolution:
    """What resolution_auto does, for the submit that has just frozen the issue (the hot path).

    The caller holds the study issue's lock, has frozen every rater's submitted annotation and hands
    over their labels and the study's dimension keys (in display order) and ids, so nothing is read again. The
    caller bumps the study's labels version, once, as the last write of its transaction (resolution_auto does it
    itself).
    """
    # order_by(): at most one per issue, and the default ordering (by study issue) would join the study issue.
    existing = Resolution.objects.select_for_update(of=("self",)).filter(study_issue=locked_issue).order_by().first()
    comparison = compare_labels(raters, dimension_keys=dimension_keys)
    return _auto_write(
        locked_issue=locked_issue,
        existing=existing,
        comparison=comparison,
        actor=actor,
        dimension_ids=dimension_ids,
        single=len(raters) == 1,
    )


def _auto_write(
    *,
    locked_issue: StudyIssue,
    existing: Resolution | None,
    comparison: Comparison,
    actor,
    dimension_ids: dict[str, int] | None = None,
    single: bool = False,
) -> Resolution:
    fields = _auto_fields(existing=existing, comparison=comparison, single=single)
    labels = fields.pop("values")
    if dimension_ids is None:
        dimension_ids = version_dimension_ids(locked_issue.study.taxonomy_version_id)
    if existing is not None:
        before = resolution_state_snapshot(existing)
        for name, value in fields.items():
            setattr(existing, name, value)
        resolution_save_revision(
            existing,
            actor=actor,
            action=ResolutionHistory.Action.AUTO,
            before=before,
            labels=labels,
            dimension_ids=dimension_ids,
        )
        return existing
    resolution = Resolution.objects.create(study_issue=locked_issue, **fields)
    rows = value_rows(resolution, labels, dimension_ids=dimension_ids)
    if rows:
        ResolutionValue.objects.bulk_create(rows)
    resolution_history_record(
        resolution=resolution,
        actor=actor,
        action=ResolutionHistory.Action.AUTO,
        before={},
        after=resolution_state_snapshot(resolution, labels),
    )
    return resolution


def _auto_fields(*, existing: Resolution | None, comparison: Comparison, single: bool = False) -> dict:
    """A resolution's fields from the raters' comparison: agreed dimensions decided, the rest pending.

    Disagreements are part of the record: a key once in dispute stays in `disagreement_keys` for good, so an
    issue the raters settled by discussion (sent back, then resubmitted alike) stays among the disagreements.
    A disputed dimension the raters agree on after the issue was sent back counts as negotiated; one still in
    dispute waits again. A single-coded issue (one rater) has nothing to compare: its rater's labels are final,
    each dimension decided as single-coded.
    """
    discussed = existing.disagreements if existing is not None else []
    keys = list(dict.fromkeys([*discussed, *comparison.disagreements]))
    sent_back = existing is not None and existing.status == Resolution.Status.SENT_BACK
    earlier = existing.methods if existing is not None else {}

    def method_for(key: str) -> str:
        if single:
            return Resolution.Method.SINGLE_CODED
        # Agreement reached by discussing the issue (now, or before a later re-labelling) is negotiated; raters
        # who re-label on their own after a reopen or a taxonomy move agree unanimously.
        if key in discussed and (sent_back or earlier.get(key) == Resolution.Method.NEGOTIATED):
            return Resolution.Method.NEGOTIATED
        return Resolution.Method.UNANIMOUS

    if comparison.all_excluded:
        values, methods = {}, ({EXCLUDED: method_for(EXCLUDED)} if EXCLUDED in discussed else {})
    else:
        values = comparison.agreed
        methods = {key: method_for(key) for key in comparison.agreed}
        if EXCLUDED in discussed and EXCLUDED not in comparison.disagreements:
            methods[EXCLUDED] = method_for(EXCLUDED)  # they now agree the issue is in scope: settled
    resolved = not comparison.disagreements
    fields = {
        "values": values,
        "methods": methods,
        "excluded": comparison.all_excluded,
        "disagreement_keys": disagreement_keys_text(keys),
        "disagreement_count": len(keys),
        "status": Resolution.Status.RESOLVED if resolved else Resolution.Status.PENDING,
        "method": (Resolution.Method.SINGLE_CODED if single else overall_method(methods)) if resolved else "",
        "disagreement_reason": "",
        "decided_by": None,
        "decided_at": timezone.now(),
    }
    return fields


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
            locked_issue, existing = lock_issue_resolution(study_issue)
            if existing is None and resolution_auto(study_issue=locked_issue) is not None:
                created += 1
    return created
