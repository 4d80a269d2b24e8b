"""Row generators of the exports: the final dataset (one row per resolved issue) and the per-rater labels
(one row per submitted annotation).

Rows are read with ``.iterator(chunk_size=2000)`` (see ``streamed``) as plain tuples, never as a list of the whole
study, so memory stays flat however many issues a study has. Per-rater values come from a second table: they are
fetched per chunk of annotations (one query per 2,000 rows), never per row.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby, islice
from operator import itemgetter
from typing import Any

from django.db import connections, transaction
from django.db.models import Case, OuterRef, QuerySet, Subquery, TextField, Value, When
from django.db.models.functions import Cast, Coalesce

from annotator.models import (
    Annotation,
    AnnotationValue,
    FirstSubmission,
    FirstSubmissionValue,
    Repository,
    Resolution,
)
from annotator.selectors.resolution_values import Labels, assemble_labels

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


def repository_name(owner: str | None, name: str | None) -> str:
    """The export's repository cell: owner/name, empty for an issue without a repository."""
    return Repository.full_name_of(owner, name) if name else ""


# --- the final dataset ----------------------------------------------------------------------------------


def final_dataset_header(context: ExportContext) -> list[str]:
    """The columns of the final dataset: where the issue sits in the sample (position, round), its final labels
    (codes, names, paths), how they were reached, what the raters disagreed on and why it was excluded."""
    header = ["position", "round", "issue_url", "repository", "number", "title"]
    for dimension in context.dimensions:
        header += [f"{dimension.key}_code", f"{dimension.key}_name"]
        if dimension.key in context.hierarchical:
            header.append(f"{dimension.key}_path")
    return [*header, "method", "disagreements", "disagreement_reason", "excluded", "excluded_reason"]


def excluded_reason_expression():
    """Why an excluded issue was excluded: the reason of the first rater (in assignment order) who excluded it.

    Evaluated only for excluded resolutions (the CASE), so a study's export reads it for a handful of rows.
    """
    reason = (
        Annotation.objects.filter(
            assignment__study_issue_id=OuterRef("study_issue_id"), submitted_at__isnull=False, excluded=True
        )
        .order_by("assignment_id")
        .values("excluded_reason")[:1]
    )
    return Case(When(excluded=True, then=Coalesce(Subquery(reason), Value(""))), default=Value(""))


def disputed_keys(keys: str) -> list[str]:
    """The dimension keys of `Resolution.disagreement_keys` (",a,b,") as a list."""
    return [key for key in (keys or "").split(",") if key]


LABEL_COLUMNS = (
    "final_values__dimension__key",
    "final_values__category_id",
    "final_values__proposal",
    "final_values__proposal_annotation_id",
)


def labelled(rows: Iterator[tuple]) -> Iterator[tuple[tuple, Labels]]:
    """Rows of ``Resolution.values_list("pk", "methods", "excluded", *columns, *LABEL_COLUMNS)`` ordered so that a
    resolution's rows are consecutive (one per final label, joined in the same query): each resolution once, as
    (columns, its final labels). One query for the whole export, streamed."""
    for _pk, group in groupby(rows, key=itemgetter(0)):
        members = list(group)
        first = members[0]
        labels = assemble_labels(first[1], first[2], [row[-4:] for row in members if row[-4] is not None])
        yield first[3:-4], labels


def resolved_rows(context: ExportContext, *, methods_as_text: bool = False) -> Iterator[tuple[tuple, Labels]]:
    """The study's resolved issues in sample order, as (columns, final labels): position, round, URL, owner,
    repository, number, title, methods, method, disagreement keys and reason, excluded, excluded reason, note.
    One query for the whole export, streamed; `methods_as_text` gives the methods as the database's JSON text."""
    methods = Cast("methods", output_field=TextField()) if methods_as_text else "methods"
    rows = streamed(
        Resolution.objects.filter(study_issue__study=context.study, status=Resolution.Status.RESOLVED)
        .order_by("study_issue__position", "final_values__id")
        .values_list(
            "pk",
            "methods",
            "excluded",
            "study_issue__position",
            "study_issue__round__number",
            "study_issue__issue__url",
            "study_issue__issue__repository__owner",
            "study_issue__issue__repository__name",
            "study_issue__issue__number",
            "study_issue__issue__title",
            methods,
            "method",
            "disagreement_keys",
            "disagreement_reason",
            "excluded",
            excluded_reason_expression(),
            "note",
            *LABEL_COLUMNS,
        )
    )
    return labelled(rows)


def _final_rows(context: ExportContext) -> Iterator[tuple]:
    for row, labels in resolved_rows(context):
        yield (*row[:7], labels, *row[7:])


def final_dataset_rows(context: ExportContext) -> Iterator[list[Any]]:
    """CSV rows under ``final_dataset_header``: codes and names of several categories joined with "; "."""
    for row in _final_rows(context):
        position, round_number, url, owner, repo, number, title, values, _methods = row[:9]
        method, keys, reason, excluded, excluded_reason, _note = row[9:]
        cells: list[Any] = [position, round_number, url, repository_name(owner, repo), number, title]
        for dimension in context.dimensions:
            ids = (values or {}).get(dimension.key)
            cells += [LIST_SEPARATOR.join(context.codes(ids)), LIST_SEPARATOR.join(context.names(ids))]
            if dimension.key in context.hierarchical:
                cells.append(LIST_SEPARATOR.join(context.paths(ids)))
        yield [*cells, method, LIST_SEPARATOR.join(disputed_keys(keys)), reason, excluded, excluded_reason]


def final_dataset_records(context: ExportContext) -> Iterator[dict[str, Any]]:
    """JSON records: the same fields, with the labels per dimension as lists (codes, names, paths)."""
    for row in _final_rows(context):
        position, round_number, url, owner, repo, number, title, values, methods = row[:9]
        method, keys, reason, excluded, excluded_reason, note = row[9:]
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
            "position": position,
            "round": round_number,
            "issue_url": url,
            "repository": repository_name(owner, repo),
            "number": number,
            "title": title,
            "labels": labels,
            "methods": methods or {},
            "method": method,
            "disagreements": disputed_keys(keys),
            "disagreement_reason": reason,
            "excluded": excluded,
            "excluded_reason": excluded_reason,
            "note": context.text(note),
        }


# --- per-rater labels -----------------------------------------------------------------------------------


INDEPENDENT = "independent_"  # prefix of the columns of a rater's first, independent submission


def rater_labels_header(context: ExportContext) -> list[str]:
    """One row per submitted annotation, in two layers: the rater's labels now (revised, if the issue was sent
    back and discussed) and, under ``independent_``, their first, independent submission."""
    keys = [dimension.key for dimension in context.dimensions]
    header = ["issue_url", "rater"]
    header += [f"{key}_code" for key in keys]
    header += [f"{key}_proposal" for key in keys]
    header += ["note", "excluded", "excluded_reason", "confidence", "submitted_at", "time_spent_seconds"]
    header += [f"{INDEPENDENT}{key}_code" for key in keys]
    header += [f"{INDEPENDENT}{key}_proposal" for key in keys]
    return [
        *header,
        f"{INDEPENDENT}excluded",
        f"{INDEPENDENT}excluded_reason",
        f"{INDEPENDENT}submitted_at",
        f"{INDEPENDENT}source",
    ]


@dataclass(frozen=True, slots=True)
class Independent:
    """A rater's first, independent submission of an issue, as the exports show it."""

    labels: dict[str, list[int]]
    proposals: dict[str, str]
    excluded: bool
    excluded_reason: str
    submitted_at: Any
    source: str


@dataclass(frozen=True, slots=True)
class AnnotationChunk:
    rows: list[tuple]
    values: dict[int, dict[str, list[int]]]  # annotation id -> current labels
    independent: dict[int, Independent]  # annotation id -> first submission


def _by_key(rows, keys: dict[int, str]) -> dict[int, dict[str, list[int]]]:
    found: dict[int, dict[str, list[int]]] = {}
    for owner_id, dimension_id, category_id in rows:
        if dimension_id in keys:
            found.setdefault(owner_id, {}).setdefault(keys[dimension_id], []).append(category_id)
    return found


def first_submissions_of(annotation_ids: list[int], keys: dict[int, str]) -> dict[int, Independent]:
    """{annotation id: its first submission} for a chunk of annotations, in two queries."""
    firsts = list(
        FirstSubmission.objects.filter(annotation_id__in=annotation_ids).values_list(
            "pk", "annotation_id", "excluded", "excluded_reason", "proposals", "submitted_at", "source"
        )
    )
    values = _by_key(
        FirstSubmissionValue.objects.filter(first_submission_id__in=[row[0] for row in firsts])
        .order_by("first_submission_id", "category_id")
        .values_list("first_submission_id", "dimension_id", "category_id"),
        keys,
    )
    return {
        annotation_id: Independent(
            labels=values.get(pk, {}),
            proposals=dict(proposals or {}),
            excluded=excluded,
            excluded_reason=reason,
            submitted_at=submitted_at,
            source=source,
        )
        for pk, annotation_id, excluded, reason, proposals, submitted_at, source in firsts
    }


def _annotation_chunks(context: ExportContext) -> Iterator[AnnotationChunk]:
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
        ids = [row[0] for row in chunk]
        values = _by_key(
            AnnotationValue.objects.filter(annotation_id__in=ids)
            .order_by("annotation_id", "category_id")
            .values_list("annotation_id", "dimension_id", "category_id"),
            keys,
        )
        yield AnnotationChunk(rows=chunk, values=values, independent=first_submissions_of(ids, keys))


def _proposal(context: ExportContext, proposals: dict | None, key: str) -> str:
    value = (proposals or {}).get(key)
    return context.text(str(value)) if value else ""


def rater_labels_rows(context: ExportContext) -> Iterator[list[Any]]:
    for chunk in _annotation_chunks(context):
        for pk, url, rater, note, excluded, reason, confidence, submitted, seconds, proposals in chunk.rows:
            own = chunk.values.get(pk, {})
            row: list[Any] = [url, context.rater(rater)]
            row += [LIST_SEPARATOR.join(context.codes(own.get(d.key))) for d in context.dimensions]
            row += [_proposal(context, proposals, d.key) for d in context.dimensions]
            row += [context.text(note), excluded, reason, confidence, submitted, seconds]
            first = chunk.independent.get(pk)
            if first is None:  # no record of the first submission: the independent columns stay empty
                yield [*row, *([""] * (2 * len(context.dimensions) + 4))]
                continue
            row += [LIST_SEPARATOR.join(context.codes(first.labels.get(d.key))) for d in context.dimensions]
            row += [_proposal(context, first.proposals, d.key) for d in context.dimensions]
            yield [*row, first.excluded, first.excluded_reason, first.submitted_at, first.source]


def _independent_record(context: ExportContext, first: Independent | None) -> dict[str, Any] | None:
    if first is None:
        return None
    return {
        "labels": {d.key: context.codes(first.labels[d.key]) for d in context.dimensions if d.key in first.labels},
        "proposals": {k: context.text(str(v)) for k, v in first.proposals.items()},
        "excluded": first.excluded,
        "excluded_reason": first.excluded_reason,
        "submitted_at": first.submitted_at,
        "source": first.source,
    }


def rater_labels_records(context: ExportContext) -> Iterator[dict[str, Any]]:
    for chunk in _annotation_chunks(context):
        for pk, url, rater, note, excluded, reason, confidence, submitted, seconds, proposals in chunk.rows:
            own = chunk.values.get(pk, {})
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
                "independent": _independent_record(context, chunk.independent.get(pk)),
            }
