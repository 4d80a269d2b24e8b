"""Recording a rater's first, independent submission of an issue (see annotator.models.snapshots)."""

from datetime import datetime

from annotator.models import Annotation, FirstSubmission, FirstSubmissionValue


def first_submission_record(
    *,
    annotation: Annotation,
    values: list[tuple[int, int]],
    submitted_at: datetime,
    source: str = FirstSubmission.Source.APP,
) -> FirstSubmission | None:
    """Keep what the rater submitted first; later submits (revisions) leave it as it was.

    `values` are (dimension id, category id) pairs. Call inside the submitting transaction, with the
    annotation's study issue locked, so two submits of one annotation cannot both record. Returns the
    new record, or None when the annotation already has one.
    """
    if FirstSubmission.objects.filter(annotation_id=annotation.pk).exists():
        return None
    assignment = annotation.assignment
    snapshot = FirstSubmission.objects.create(
        annotation_id=annotation.pk,
        study_issue_id=assignment.study_issue_id,
        rater_id=assignment.rater_id,
        submitted_at=submitted_at,
        excluded=annotation.excluded,
        excluded_reason=annotation.excluded_reason,
        proposals=dict(annotation.proposals or {}),
        confidence=annotation.confidence,
        note=annotation.note,
        source=source,
    )
    FirstSubmissionValue.objects.bulk_create(
        FirstSubmissionValue(first_submission=snapshot, dimension_id=dimension_id, category_id=category_id)
        for dimension_id, category_id in sorted(set(values))
    )
    return snapshot
