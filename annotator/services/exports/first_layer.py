"""Restoring the raters' first, independent submissions from a replication package's labels.

Each record of ``data/labels.jsonl`` may carry ``independent``: the rater's first submission of the issue
(written by ``rater_labels_records``). The import keeps it as a FirstSubmission with source "package", so the
imported study reports the same "before discussion" figures as the one it came from. A package written before
this layer existed has none: then the labels themselves were the first submission, as far as anyone knows, and
the import keeps them as such with source "history", the rule by which migration 0012 recovered the first
submissions of annotations submitted before the record existed. Recorded at import, they stay the first
submission when the issue is later sent back (or reopened by a version move) and resubmitted.
"""

from collections.abc import Callable, Sequence
from typing import Any

from django.utils.dateparse import parse_datetime

from annotator.models import Annotation, FirstSubmission
from annotator.services.first_submissions import FirstSubmissionDraft, first_submissions_record
from annotator.services.resolutions import RaterLabels, compare_labels
from core.errors import DomainError
from taxonomy.models import Dimension

from .rows import INDEPENDENT

MAX_PROPOSAL = 500  # as the labelling API accepts


def _proposals(value: Any, where: str) -> dict[str, str]:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise DomainError(f"{where}: proposals must map dimension keys to text.")
    return {key: text[:MAX_PROPOSAL] for key, text in value.items() if text}


def first_submissions_restore(
    *,
    records: Sequence[dict],
    annotations: Sequence[Annotation],
    dimensions: dict[str, Dimension],
    ids: Callable[[str, list[str], str], list[int]],
) -> dict[str, list[str]]:
    """Write the first submissions that `records` carry for the just-created `annotations` (same order); a
    record without the layer has its own labels kept as its first submission.

    `ids(key, codes, where)` turns category codes into ids (raising the import's error for unknown codes).
    Returns, per issue URL, the dimensions on which the first submissions differed: disagreements the
    resolution keeps even if the raters later converged. Validates every record before writing any.
    """
    drafts: list[FirstSubmissionDraft] = []
    by_issue: dict[str, list[FirstSubmissionDraft]] = {}
    for record, annotation in zip(records, annotations, strict=True):
        layer = record.get(INDEPENDENT.rstrip("_"))
        where = f"data/labels.jsonl: {record.get('issue_url')} by {record.get('rater')}"
        if layer is None:
            draft = _as_imported(record, annotation, dimensions, ids, where)
            drafts.append(draft)
            by_issue.setdefault(record["issue_url"], []).append(draft)
            continue
        if not isinstance(layer, dict) or not isinstance(layer.get("labels", {}), dict):
            raise DomainError(f"{where}: 'independent' must be an object with 'labels'.")
        values = []
        for key, codes in (layer.get("labels") or {}).items():
            if key not in dimensions or not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise DomainError(f"{where}: independent labels of an unknown dimension or not a list of codes.")
            values += [(dimensions[key].pk, category_id) for category_id in ids(key, codes, where)]
        excluded = layer.get("excluded") is True
        reason = layer.get("excluded_reason") or ""
        if not isinstance(reason, str) or len(reason) > 20 or (excluded and not reason):
            raise DomainError(f"{where}: an excluded first submission needs its reason (a short code).")
        submitted = layer.get("submitted_at")
        submitted = parse_datetime(submitted) if isinstance(submitted, str) and submitted else None
        draft = FirstSubmissionDraft(
            annotation=annotation,
            values=values,
            submitted_at=submitted or annotation.submitted_at,
            source=FirstSubmission.Source.PACKAGE,
            excluded=excluded,
            excluded_reason=reason,
            proposals=_proposals(layer.get("proposals"), where),
        )
        drafts.append(draft)
        by_issue.setdefault(record["issue_url"], []).append(draft)
    first_submissions_record(drafts=drafts)  # validated every record first: all of them are written, or none
    keys = list(dimensions)
    dimension_keys = {dimension.pk: key for key, dimension in dimensions.items()}
    return {url: _differing(pairs, keys, dimension_keys) for url, pairs in by_issue.items() if len(pairs) > 1}


def _as_imported(
    record: dict,
    annotation: Annotation,
    dimensions: dict[str, Dimension],
    ids: Callable[[str, list[str], str], list[int]],
    where: str,
) -> FirstSubmissionDraft:
    """A record without the layer: its labels (those of the study's dimensions, as the import keeps them), as
    imported, were the rater's first submission."""
    labels = record.get("labels") or {}
    values = [
        (dimension.pk, category_id)
        for key, dimension in dimensions.items()
        for category_id in ids(key, labels.get(key, []), where)
    ]
    return FirstSubmissionDraft.of_annotation(
        annotation, values=values, submitted_at=annotation.submitted_at, source=FirstSubmission.Source.HISTORY
    )


def _differing(drafts: list[FirstSubmissionDraft], keys: list[str], dimension_keys: dict[int, str]) -> list[str]:
    raters = []
    for draft in drafts:
        labels: dict[str, list[int]] = {}
        for dimension_id, category_id in draft.values:
            labels.setdefault(dimension_keys[dimension_id], []).append(category_id)
        raters.append(RaterLabels(values=labels, proposals=draft.proposals, excluded=draft.excluded))
    return compare_labels(raters, dimension_keys=keys).disagreements
