"""Row generators of the exports: the final dataset (one row per resolved issue) and the per-rater labels
(one row per submitted annotation).

Rows are read with ``.iterator(chunk_size=2000)`` (see ``streamed``) as plain tuples, never as a list of the whole
study, so memory stays flat however many issues a study has. Per-rater values come from a second table: they are
fetched per chunk of annotations (one query per 2,000 rows), never per row.
"""

from collections.abc import Iterator
from itertools import islice
from typing import Any

from django.db import connections, transaction
from django.db.models import QuerySet

from annotator.models import Annotation, AnnotationValue, Resolution

from .context import LIST_SEPARATOR, ExportContext

CHUNK_SIZE = 2000


def streamed(queryset: QuerySet, chunk_size: int = CHUNK_SIZE) -> Iterator[Any]:
    """``queryset.iterator()``, inside a transaction on PostgreSQL.

    Outside a transaction Django declares its server-side cursor WITH HOLD, and PostgreSQL then runs the whole
    query and stores every row before the first one is sent: the download waits (about 0.35 s per 100,000 rows)
    while the worker idles. In a transaction the cursor streams: the first rows leave at once and
    the database reads ahead while the rows are written. The transaction only reads; closing the stream (the
    download ends or the client goes away) ends it.
    """
    connection = connections[queryset.db]
    if connection.vendor != "postgresql" or not connection.get_autocommit():
        yield from queryset.iterator(chunk_size=chunk_size)
        return
    with transaction.atomic(using=queryset.db):
        yield from queryset.iterator(chunk_size=chunk_size)


def _repository(owner: str | None, name: str | None) -> str:
    if not name:
        return ""
    return f"{owner}/{name}" if owner else name


# --- the final dataset ----------------------------------------------------------------------------------


def final_dataset_header(context: ExportContext) -> list[str]:
    header = ["issue_url", "repository", "number", "title"]
    for dimension in context.dimensions:
        header += [f"{dimension.key}_code", f"{dimension.key}_name"]
        if dimension.key in context.hierarchical:
            header.append(f"{dimension.key}_path")
    return [*header, "method", "disagreement_reason", "excluded"]


def _final_rows(context: ExportContext) -> Iterator[tuple]:
    return streamed(
        Resolution.objects.filter(study_issue__study=context.study, status=Resolution.Status.RESOLVED)
        .order_by("study_issue__position")
        .values_list(
            "study_issue__issue__url",
            "study_issue__issue__repository__owner",
            "study_issue__issue__repository__name",
            "study_issue__issue__number",
            "study_issue__issue__title",
            "values",
            "methods",
            "method",
            "disagreement_reason",
            "excluded",
            "note",
        )
    )


def final_dataset_rows(context: ExportContext) -> Iterator[list[Any]]:
    """CSV rows under ``final_dataset_header``: codes and names of several categories joined with "; "."""
    for url, owner, repo, number, title, values, _methods, method, reason, excluded, _note in _final_rows(context):
        row: list[Any] = [url, _repository(owner, repo), number, title]
        for dimension in context.dimensions:
            ids = (values or {}).get(dimension.key)
            row += [LIST_SEPARATOR.join(context.codes(ids)), LIST_SEPARATOR.join(context.names(ids))]
            if dimension.key in context.hierarchical:
                row.append(LIST_SEPARATOR.join(context.paths(ids)))
        yield [*row, method, reason, excluded]


def final_dataset_records(context: ExportContext) -> Iterator[dict[str, Any]]:
    """JSON records: the same fields, with the labels per dimension as lists (codes, names, paths)."""
    for url, owner, repo, number, title, values, methods, method, reason, excluded, note in _final_rows(context):
        labels = {}
        for dimension in context.dimensions:
            ids = (values or {}).get(dimension.key)
            if ids is None:
                continue
            label = {"codes": context.codes(ids), "names": context.names(ids)}
            if dimension.key in context.hierarchical:
                label["paths"] = context.paths(ids)
            labels[dimension.key] = label
        yield {
            "issue_url": url,
            "repository": _repository(owner, repo),
            "number": number,
            "title": title,
            "labels": labels,
            "methods": methods or {},
            "method": method,
            "disagreement_reason": reason,
            "excluded": excluded,
            "note": context.text(note),
        }


# --- per-rater labels -----------------------------------------------------------------------------------


def rater_labels_header(context: ExportContext) -> list[str]:
    header = ["issue_url", "rater"]
    header += [f"{dimension.key}_code" for dimension in context.dimensions]
    return [*header, "note", "excluded", "excluded_reason", "confidence", "submitted_at", "time_spent_seconds"]


def _annotation_chunks(context: ExportContext) -> Iterator[tuple[list[tuple], dict[int, dict[str, list[int]]]]]:
    rows = streamed(
        Annotation.objects.filter(assignment__study_issue__study=context.study, submitted_at__isnull=False)
        .order_by("assignment__study_issue__position", "assignment__rater_id")
        .values_list(
            "pk",
            "assignment__study_issue__issue__url",
            "assignment__rater_id",
            "note",
            "excluded",
            "excluded_reason",
            "confidence",
            "submitted_at",
            "time_spent_seconds",
            "proposals",
        )
    )
    keys = {d.pk: d.key for d in context.dimensions}
    while chunk := list(islice(rows, CHUNK_SIZE)):
        values: dict[int, dict[str, list[int]]] = {}
        for annotation_id, dimension_id, category_id in (
            AnnotationValue.objects.filter(annotation_id__in=[row[0] for row in chunk])
            .order_by("annotation_id", "category_id")
            .values_list("annotation_id", "dimension_id", "category_id")
        ):
            if dimension_id in keys:
                values.setdefault(annotation_id, {}).setdefault(keys[dimension_id], []).append(category_id)
        yield chunk, values


def rater_labels_rows(context: ExportContext) -> Iterator[list[Any]]:
    for chunk, values in _annotation_chunks(context):
        for pk, url, rater, note, excluded, reason, confidence, submitted, seconds, _proposals in chunk:
            own = values.get(pk, {})
            row: list[Any] = [url, context.rater(rater)]
            row += [LIST_SEPARATOR.join(context.codes(own.get(d.key))) for d in context.dimensions]
            yield [*row, context.text(note), excluded, reason, confidence, submitted, seconds]


def rater_labels_records(context: ExportContext) -> Iterator[dict[str, Any]]:
    for chunk, values in _annotation_chunks(context):
        for pk, url, rater, note, excluded, reason, confidence, submitted, seconds, proposals in chunk:
            own = values.get(pk, {})
            yield {
                "issue_url": url,
                "rater": context.rater(rater),
                "labels": {d.key: context.codes(own[d.key]) for d in context.dimensions if d.key in own},
                "proposals": {k: context.text(str(v)) for k, v in (proposals or {}).items()},
                "note": context.text(note),
                "excluded": excluded,
                "excluded_reason": reason,
                "confidence": confidence,
                "submitted_at": submitted,
                "time_spent_seconds": seconds,
            }
