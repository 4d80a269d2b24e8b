"""Append-only audit history of annotations and resolutions: a snapshot before and after each change."""

from typing import Any

from annotator.models import Annotation, AnnotationHistory, Resolution, ResolutionHistory
from annotator.selectors.resolution_values import Labels, category_ids, proposals_of, resolution_labels_fresh


def annotation_snapshot(annotation: Annotation, *, values: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """The labelled state of an annotation as plain JSON (category ids per dimension key)."""
    if values is None:
        values = {}
        for dimension_key, category_id in annotation.values.order_by("dimension__key", "category_id").values_list(
            "dimension__key", "category_id"
        ):
            values.setdefault(dimension_key, []).append(category_id)
    return {
        "values": {key: sorted(ids) for key, ids in sorted(values.items())},
        "note": annotation.note,
        "excluded": annotation.excluded,
        "excluded_reason": annotation.excluded_reason,
        "excluded_text": annotation.excluded_text,
        "confidence": annotation.confidence,
        "proposals": dict(sorted(annotation.proposals.items())),
        "time_spent_seconds": annotation.time_spent_seconds,
        "submitted_at": annotation.submitted_at.isoformat() if annotation.submitted_at else None,
        "frozen": annotation.frozen,
        "version": annotation.version,
    }


def annotation_history_entry(
    *, annotation: Annotation, actor, action: str, before: dict[str, Any], after: dict[str, Any]
) -> AnnotationHistory:
    """The history entry of a change, not yet written (a caller writing several writes them in one INSERT)."""
    return AnnotationHistory(
        annotation=annotation, actor=actor, action=action, version=annotation.version, before=before, after=after
    )


def annotation_history_write(entries: list[AnnotationHistory]) -> None:
    """Append entries made by annotation_history_entry, in their order, in one INSERT."""
    AnnotationHistory.objects.bulk_create(entries)


def annotation_history_record(
    *, annotation: Annotation, actor, action: str, before: dict[str, Any], after: dict[str, Any]
) -> AnnotationHistory:
    entry = annotation_history_entry(annotation=annotation, actor=actor, action=action, before=before, after=after)
    annotation_history_write([entry])
    return entry


def resolution_snapshot(resolution: Resolution, *, labels: Labels | None = None) -> dict[str, Any]:
    """The final labels (as stored now, or `labels` when the caller has just written them): category ids per
    decided dimension key, and (only when some dimension was settled on a rater's proposal) the proposals with
    the annotation that proposed each."""
    if labels is None:
        labels = resolution_labels_fresh(resolution)
    proposals = proposals_of(labels)
    extra = (
        {"proposals": {key: {"text": p.text, "annotation": p.annotation_id} for key, p in proposals.items()}}
        if proposals
        else {}
    )
    return {
        "values": category_ids(labels),
        **extra,
        "excluded": resolution.excluded,
        "method": resolution.method,
        "disagreement_reason": resolution.disagreement_reason,
        "note": resolution.note,
        "decided_by": resolution.decided_by_id,
        "decided_at": resolution.decided_at.isoformat() if resolution.decided_at else None,
        "version": resolution.version,
    }


def resolution_history_record(
    *, resolution: Resolution, actor, action: str, before: dict[str, Any], after: dict[str, Any]
) -> ResolutionHistory:
    return ResolutionHistory.objects.create(
        resolution=resolution, actor=actor, action=action, version=resolution.version, before=before, after=after
    )
