"""Taking a decision back (when the taxonomy changed under it): the issue waits for adjudication again."""

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from annotator.models import Resolution, ResolutionHistory, ResolutionValue, StudyIssue
from annotator.services.agreement.version import study_labels_changed
from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError

from .adjudicators import can_adjudicate
from .comparison import disagreement_keys_text
from .rows import lock_issue_resolution, resolution_save_revision, resolution_state_snapshot


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
    locked_issue, resolution = lock_issue_resolution(study_issue)
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
    before = resolution_state_snapshot(resolution)
    # Only the stale dimensions' rows go; the others stay as they are (a version move resets after it has
    # carried the rows to the new version's dimensions).
    ResolutionValue.objects.filter(resolution=resolution, dimension__key__in=stale).delete()
    resolution.methods = {key: m for key, m in resolution.methods.items() if key not in stale}
    if resolution.status != Resolution.Status.SENT_BACK:
        disputed = list(dict.fromkeys([*resolution.disagreements, *stale]))
        resolution.disagreement_keys = disagreement_keys_text(disputed)
        resolution.disagreement_count = len(disputed)
        resolution.status = Resolution.Status.PENDING
    resolution.method = ""
    resolution.disagreement_reason = ""
    resolution.decided_by = None
    resolution.decided_at = timezone.now()
    resolution_save_revision(
        resolution,
        actor=actor,
        action=ResolutionHistory.Action.REVISE,
        before=before,
        note={"reason": reason},
    )
    study_labels_changed(study_id=locked_issue.study_id)
    return resolution
