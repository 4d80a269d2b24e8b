"""Restoring the raters' first, independent submissions from a replication package's labels.

Each record of ``data/labels.jsonl`` may carry ``independent``: the rater's first submission of the issue
(written by ``rater_labels_records``). The import keeps it as a FirstSubmission with source "package", so the
imported study reports the same "before discussion" figures as the one it came from. A package written before
this layer existed has none: then the labels themselves were the first submission, as far as anyone knows.
"""

from collections.abc import Callable, Sequence
from typing import Any

from django.utils.dateparse import parse_datetime

from annotator.models import Annotation, FirstSubmission, FirstSubmissionValue
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
    """Write the first submissions that `records` carry for the just-created `annotations` (same order).

    `ids(key, codes, where)` turns category codes into ids (raising the import's error for unknown codes).
    Returns, per issue URL, the dimensions on which the first submissions differed: disagreements the
    resolution keeps even if the raters later converged. Validates every record before writing any.
    """
    firsts: list[tuple[FirstSubmission, dict[str, list[int]]]] = []
    by_issue: dict[str, list] = {}
    for record, annotation in zip(records, annotations, strict=True):
        layer = record.get(INDEPENDENT.rstrip("_"))
        if layer is None:
            continue
        where = f"data/labels.jsonl: {record.get('issue_url')} by {record.get('rater')}"
        if not isinstance(layer, dict) or not isinstance(layer.get("labels", {}), dict):
            raise DomainError(f"{where}: 'independent' must be an object with 'labels'.")
        labels = {}
        for key, codes in (layer.get("labels") or {}).items():
            if key not in dimensions or not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise DomainError(f"{where}: independent labels of an unknown dimension or not a list of codes.")
            if found := ids(key, codes, where):
                labels[key] = found
        excluded = layer.get("excluded") is True
        reason = layer.get("excluded_reason") or ""
        if not isinstance(reason, str) or len(reason) > 20 or (excluded and not reason):
            raise DomainError(f"{where}: an excluded first submission needs its reason (a short code).")
        submitted = layer.get("submitted_at")
        submitted = parse_datetime(submitted) if isinstance(submitted, str) and submitted else None
        assignment = annotation.assignment
        firsts.append(
            (
                FirstSubmission(
                    annotation=annotation,
                    study_issue_id=assignment.study_issue_id,
                    rater_id=assignment.rater_id,
                    submitted_at=submitted or annotation.submitted_at,
                    excluded=excluded,
                    excluded_reason=reason if excluded else "",
                    proposals=_proposals(layer.get("proposals"), where),
                    source=FirstSubmission.Source.PACKAGE,
                ),
                labels,
            )
        )
        by_issue.setdefault(record["issue_url"], []).append(firsts[-1])
    created = FirstSubmission.objects.bulk_create([first for first, _ in firsts])
    FirstSubmissionValue.objects.bulk_create(
        [
            FirstSubmissionValue(first_submission=first, dimension=dimensions[key], category_id=category_id)
            for first, (_, labels) in zip(created, firsts, strict=True)
            for key, category_ids in labels.items()
            for category_id in category_ids
        ],
        batch_size=2000,
    )
    return {url: _differing(pairs, list(dimensions)) for url, pairs in by_issue.items() if len(pairs) > 1}


def _differing(pairs: list[tuple[FirstSubmission, dict[str, list[int]]]], keys: list[str]) -> list[str]:
    raters = [RaterLabels(values=labels, proposals=first.proposals, excluded=first.excluded) for first, labels in pairs]
    return compare_labels(raters, dimension_keys=keys).disagreements
