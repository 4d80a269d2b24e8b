"""Recording a rater's first, independent submission of an issue (see annotator.models.snapshots).

One writer for every source: a submit in the app, a rater's spreadsheet, a replication package. The rules
live here once: an annotation has at most one first submission and a later write leaves it as it was; its
study issue and rater are the annotation's own; its values are (dimension, category) pairs, each once.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from annotator.models import Annotation, FirstSubmission, FirstSubmissionValue

VALUES_BATCH = 2000


@dataclass(frozen=True, slots=True)
class FirstSubmissionDraft:
    """What a source knows of a first submission; the writer takes study issue and rater from the annotation."""

    annotation: Annotation
    values: Sequence[tuple[int, int]]  # (dimension id, category id)
    submitted_at: datetime
    source: str = FirstSubmission.Source.APP
    excluded: bool = False
    excluded_reason: str = ""
    proposals: dict[str, str] = field(default_factory=dict)
    confidence: int | None = None
    note: str = ""

    @classmethod
    def of_annotation(
        cls, annotation: Annotation, *, values, submitted_at: datetime, source: str = FirstSubmission.Source.APP
    ) -> "FirstSubmissionDraft":
        """As the annotation stands when it is submitted (its exclusion, proposals, confidence and note)."""
        return cls(
            annotation=annotation,
            values=values,
            submitted_at=submitted_at,
            source=source,
            excluded=annotation.excluded,
            excluded_reason=annotation.excluded_reason,
            proposals=dict(annotation.proposals or {}),
            confidence=annotation.confidence,
            note=annotation.note,
        )


def first_submissions_record(
    *, drafts: Sequence[FirstSubmissionDraft], recorded: Iterable[int] | None = None
) -> list[FirstSubmission]:
    """Keep the first submissions of annotations that have none yet; the others are left as they were.

    Call inside the writing transaction, with the annotations' study issues locked (or just created), so two
    writers cannot both record one. A bounded number of queries whatever the number of drafts. Returns the
    new records, in the drafts' order. `recorded`: the ids among the drafts' annotations that already have
    one, when the caller has read them under the same locks (else they are read here).
    """
    if recorded is None:
        recorded = FirstSubmission.objects.filter(annotation_id__in=[d.annotation.pk for d in drafts]).values_list(
            "annotation_id", flat=True
        )
    recorded = set(recorded)
    fresh: list[FirstSubmissionDraft] = []
    for draft in drafts:
        if draft.annotation.pk not in recorded:
            recorded.add(draft.annotation.pk)  # twice in one call: the first draft wins
            fresh.append(draft)
    created = FirstSubmission.objects.bulk_create([_snapshot(draft) for draft in fresh])
    FirstSubmissionValue.objects.bulk_create(
        [
            FirstSubmissionValue(first_submission=snapshot, dimension_id=dimension_id, category_id=category_id)
            for snapshot, draft in zip(created, fresh, strict=True)
            for dimension_id, category_id in sorted(set(draft.values))
        ],
        batch_size=VALUES_BATCH,
    )
    return created


def _snapshot(draft: FirstSubmissionDraft) -> FirstSubmission:
    assignment = draft.annotation.assignment
    return FirstSubmission(
        annotation_id=draft.annotation.pk,
        study_issue_id=assignment.study_issue_id,
        rater_id=assignment.rater_id,
        submitted_at=draft.submitted_at,
        excluded=draft.excluded,
        excluded_reason=draft.excluded_reason if draft.excluded else "",
        proposals=dict(draft.proposals),
        confidence=draft.confidence,
        note=draft.note,
        source=draft.source,
    )


def first_submission_record(
    *,
    annotation: Annotation,
    values: list[tuple[int, int]],
    submitted_at: datetime,
    source: str = FirstSubmission.Source.APP,
    already_recorded: bool | None = None,
) -> FirstSubmission | None:
    """Keep what the rater submitted first; later submits (revisions) leave it as it was.

    `values` are (dimension id, category id) pairs. Call inside the submitting transaction, with the
    annotation's study issue locked, so two submits of one annotation cannot both record. Returns the
    new record, or None when the annotation already has one. `already_recorded`: whether it has one, when the
    caller has read that under the study issue's lock (else it is read here).
    """
    draft = FirstSubmissionDraft.of_annotation(annotation, values=values, submitted_at=submitted_at, source=source)
    recorded = None if already_recorded is None else ([annotation.pk] if already_recorded else [])
    created = first_submissions_record(drafts=[draft], recorded=recorded)
    return created[0] if created else None
