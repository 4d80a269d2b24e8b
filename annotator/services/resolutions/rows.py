"""What every resolution service reads: the issue and its resolution under lock, the submitted annotations,
the study's dimensions, and the snapshot a history entry keeps.

Lock order, as in the annotation services: the study issue first, then the resolution (then annotations).
Resolution.version is the optimistic lock a client sends back; the row lock makes the check-and-write atomic.
"""

from annotator.models import Annotation, Resolution, StudyIssue
from annotator.selectors.resolution_values import Labels
from annotator.services.history import resolution_history_record, resolution_snapshot
from taxonomy.models import Dimension

from .values import resolution_values_replace


def version_dimension_ids(version_id: int) -> dict[str, int]:
    """Every dimension of a taxonomy version by key (the rows of a final label point at them)."""
    return dict(Dimension.objects.filter(version_id=version_id).values_list("key", "pk"))


def submitted_annotations(study_issue: StudyIssue) -> list[Annotation]:
    """The issue's submitted annotations in assignment order, with their labels (what a comparison reads)."""
    return list(
        Annotation.objects.filter(assignment__study_issue=study_issue, submitted_at__isnull=False)
        .select_related("assignment")
        .prefetch_related("values__dimension")
        .order_by("assignment_id")
    )


def resolution_state_snapshot(resolution: Resolution, labels: Labels | None = None) -> dict:
    """What a history entry of the resolution keeps: its labels and fields, methods, status and disagreements."""
    return {
        **resolution_snapshot(resolution, labels=labels),
        "methods": dict(resolution.methods),
        "status": resolution.status,
        "disagreements": resolution.disagreements,
    }


def resolution_save_revision(
    resolution: Resolution,
    *,
    actor,
    action: str,
    before: dict,
    note: dict | None = None,
    update_fields: list[str] | None = None,
    labels: Labels | None = None,
    version_id: int | None = None,
    dimension_ids: dict[str, int] | None = None,
) -> None:
    """Save a changed resolution under its row lock: version bumped, its final labels' rows made to say
    `labels` (when given; `version_id`: the taxonomy version of their dimensions, by default the study's), and
    a history entry with the state before and after (plus `note`, e.g. the reason)."""
    resolution.version += 1  # the caller holds the row lock
    resolution.save(update_fields=[*update_fields, "version"] if update_fields else None)
    if labels is not None and dimension_ids is None:
        if version_id is None:
            version_id = StudyIssue.objects.filter(pk=resolution.study_issue_id).values_list(
                "study__taxonomy_version_id", flat=True
            )[0]
        dimension_ids = version_dimension_ids(version_id)
    if labels is not None:
        resolution_values_replace(resolution=resolution, labels=labels, dimension_ids=dimension_ids)
    resolution_history_record(
        resolution=resolution,
        actor=actor,
        action=action,
        before=before,
        after={**resolution_state_snapshot(resolution), **(note or {})},
    )


def lock_issue_resolution(study_issue: StudyIssue) -> tuple[StudyIssue, Resolution | None]:
    """The study issue and its resolution (None when it has none yet), locked in that order (the lock order)."""
    locked_issue = StudyIssue.objects.select_for_update(of=("self",)).select_related("study").get(pk=study_issue.pk)
    resolution = Resolution.objects.select_for_update(of=("self",)).filter(study_issue=locked_issue).first()
    return locked_issue, resolution
