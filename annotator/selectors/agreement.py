"""Reading what study-level agreement needs: who may see it, the labels, and a cheap "labels version".

Every function here costs a fixed number of queries whatever the size of the study; the labels come
back as integer numpy arrays (no model instance or dict per label), so 100,000 doubly-labelled issues
stay affordable.
"""

import io
import itertools
import json
import time
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import connection

from annotator.models import (
    Annotation,
    AnnotationValue,
    Assignment,
    PhaseChange,
    Resolution,
    Study,
    StudyIssue,
    StudyLabelsVersion,
    StudyRound,
)
from annotator.permissions import can_see_all_labels, is_rater
from annotator.selectors.studies import study_dimensions, study_get_for_user
from taxonomy.models import Category

FULL = "full"
SUMMARY = "summary"
BLIND_MESSAGE = (
    "Agreement figures are hidden from raters while the study is blind: the confusion matrix would show "
    "the other rater's labels. They become visible when the study is published."
)


def agreement_access(*, user, study: Study) -> str | None:
    """FULL for owners, adjudicators and staff; SUMMARY for raters once the study is published or not blind."""
    if can_see_all_labels(user, study):
        return FULL
    if is_rater(user, study) and (not study.blind or study.phase == Study.Phase.PUBLISHED):
        return SUMMARY
    return None


def agreement_study_for_user(*, user, pk: int) -> tuple[Study, str]:
    """The study and the user's access level: 404 for non-members, 403 for raters of a blind study."""
    study = study_get_for_user(user=user, pk=pk)
    access = agreement_access(user=user, study=study)
    if access is None:
        raise PermissionDenied(BLIND_MESSAGE)
    return study, access


def labels_version(*, study: Study) -> str:
    """A token that changes whenever a label of the study (an annotation, a resolution), its rounds or the
    study itself change: one query on two small per-study rows, whatever the size of the study.

    The annotation and resolution services bump the study's StudyLabelsVersion in the transaction that
    changes a label; a new round (drawn or imported) adds a StudyRound; moving to another taxonomy version
    saves the study.
    """
    q = connection.ops.quote_name
    versions, rounds = q(StudyLabelsVersion._meta.db_table), q(StudyRound._meta.db_table)
    sql = (
        f"SELECT (SELECT number FROM {versions} WHERE study_id = %s), "  # noqa: S608 -- names from the models
        f"(SELECT COUNT(*) FROM {rounds} WHERE study_id = %s), (SELECT MAX(id) FROM {rounds} WHERE study_id = %s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [study.pk, study.pk, study.pk])
        number, round_count, last_round = cursor.fetchone()
    return f"{study.updated_at.isoformat()}|{number or 0}|{round_count}|{last_round}"


@dataclass
class DimensionInfo:
    pk: int
    key: str
    name: str
    multi_valued: bool
    level_names: list[str]
    applies_when: dict
    order: int


@dataclass
class CategoryInfo:
    pk: int
    dimension_id: int
    parent_id: int | None
    name: str
    order: int


@dataclass
class StudyLabels:
    """A study's submitted labels as plain data and numpy arrays (the input of the agreement computation)."""

    dimensions: list[DimensionInfo]
    categories: dict[int, CategoryInfo]
    rounds: list[tuple[int, str]]  # (number, kind)
    rater_names: dict[int, str]
    # One element per submitted annotation (ordered by annotation id): study issue, rater, round number, excluded.
    ann_si: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ann_rater: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ann_round: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ann_excluded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    # One element per chosen category: the annotation (an index into the arrays above), dimension, category.
    val_row: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    val_dim: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    val_cat: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # One element per resolution (ordered by study issue): study issue, excluded, {dimension key: [category ids]}.
    res_si: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    res_excluded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    res_values: list[dict[str, list[int]]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def _int_columns(sql: str, study_id: int, width: int) -> np.ndarray:
    """The integer rows of a query as a (width, n) int64 array, without a Python object per cell.

    On PostgreSQL the rows come as one binary COPY buffer read straight into numpy (every column is a
    non-null bigint, so each row has the same layout); elsewhere, or if the buffer is not as expected,
    from ordinary fetched tuples.
    """
    if connection.vendor == "postgresql":
        columns = _copy_columns(sql.replace("%s", str(int(study_id))), width)
        if columns is not None:
            return columns
    with connection.cursor() as cursor:
        cursor.execute(sql, [study_id] * sql.count("%s"))
        rows = cursor.fetchall()
    flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=len(rows) * width)
    return flat.reshape(len(rows), width).T


COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def _copy_columns(sql: str, width: int) -> np.ndarray | None:
    buffer = io.BytesIO()
    with connection.cursor() as cursor:
        copy = getattr(cursor.cursor, "copy_expert", None)  # psycopg2; other drivers use the fetch path
        if copy is None:
            return None
        copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT binary)", buffer)
    data = buffer.getbuffer()
    if bytes(data[:11]) != COPY_SIGNATURE:
        return None
    start = 19 + int.from_bytes(data[15:19], "big")  # after the header and its extension area
    body = data[start : len(data) - 2]  # the trailer is one int16 (-1)
    layout = np.dtype(
        [("fields", ">i2")] + [(f, t) for i in range(width) for f, t in ((f"l{i}", ">i4"), (f"v{i}", ">i8"))]
    )
    if len(body) % layout.itemsize:
        return None
    rows = np.frombuffer(body, dtype=layout)
    if (rows["fields"] != width).any() or any((rows[f"l{i}"] != 8).any() for i in range(width)):
        return None
    return (
        np.vstack([rows[f"v{i}"].astype(np.int64) for i in range(width)])
        if len(rows)
        else np.zeros((width, 0), dtype=np.int64)
    )


def _fetch(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _label_queries() -> tuple[str, str, str]:
    """The three label queries. Table names come from the models; the study id is a query parameter."""
    q = connection.ops.quote_name
    annotation, assignment = q(Annotation._meta.db_table), q(Assignment._meta.db_table)
    study_issue, study_round = q(StudyIssue._meta.db_table), q(StudyRound._meta.db_table)
    value, resolution = q(AnnotationValue._meta.db_table), q(Resolution._meta.db_table)
    joins = (
        f"FROM {annotation} a JOIN {assignment} g ON g.id = a.assignment_id "
        f"JOIN {study_issue} s ON s.id = g.study_issue_id"
    )
    submitted = "s.study_id = %s AND a.submitted_at IS NOT NULL"
    annotations = (
        f"SELECT a.id, g.study_issue_id, g.rater_id, r.number, a.excluded {joins} "
        f"JOIN {study_round} r ON r.id = s.round_id WHERE {submitted} ORDER BY a.id"
    )
    values = (
        f"SELECT v.annotation_id, v.dimension_id, v.category_id FROM {value} v "  # noqa: S608
        f"JOIN (SELECT a.id {joins} WHERE {submitted}) x ON x.id = v.annotation_id"
    )
    resolutions = (
        f"SELECT z.study_issue_id, z.excluded, z.{q('values')} FROM {resolution} z "  # noqa: S608
        f"JOIN {study_issue} s ON s.id = z.study_issue_id WHERE s.study_id = %s ORDER BY z.study_issue_id"
    )
    return annotations, values, resolutions


def study_labels(*, study: Study) -> StudyLabels:
    """Every submitted annotation and every resolution of the study: seven queries, whatever its size.

    The labels come back as tuples of integers turned straight into numpy arrays (no model instances,
    no dict per annotation): at 100,000 issues that is most of what a first computation of the report costs.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    dimensions = study_dimensions(study=study)
    dims = [
        DimensionInfo(
            d.pk, d.key, d.name, d.multi_valued, list(d.level_names or []), dict(d.applies_when or {}), d.order
        )
        for d in dimensions
    ]
    categories = {
        pk: CategoryInfo(pk, dim_id, parent_id, name, order)
        for pk, dim_id, parent_id, name, order in Category.objects.filter(dimension__in=[d.pk for d in dims])
        .order_by()
        .values_list("pk", "dimension_id", "parent_id", "name", "order")
    }
    rounds = list(StudyRound.objects.filter(study=study).order_by("number").values_list("number", "kind"))
    timings["taxonomy"] = time.perf_counter() - started
    annotations_sql, values_sql, resolutions_sql = _label_queries()

    started = time.perf_counter()
    columns = _int_columns(annotations_sql, study.pk, 5)
    ann_id, ann_si, ann_rater, ann_round, ann_excluded = columns[:, np.argsort(columns[0], kind="stable")]
    timings["annotations"] = time.perf_counter() - started

    started = time.perf_counter()
    val_ann, val_dim, val_cat = _int_columns(values_sql, study.pk, 3)
    # Annotations are sorted by id, so each value finds its annotation's index by binary search.
    val_row = np.searchsorted(ann_id, val_ann)
    timings["values"] = time.perf_counter() - started

    started = time.perf_counter()
    res_rows = _fetch(resolutions_sql, [study.pk])
    res_values = [json.loads(v) if isinstance(v, str) else dict(v or {}) for _, _, v in res_rows]
    res_si = np.fromiter((row[0] for row in res_rows), dtype=np.int64, count=len(res_rows))
    res_excluded = np.fromiter((bool(row[1]) for row in res_rows), dtype=bool, count=len(res_rows))
    timings["resolutions"] = time.perf_counter() - started

    rater_names = {
        pk: display or username
        for pk, username, display in get_user_model()
        .objects.filter(pk__in=np.unique(ann_rater).tolist())
        .values_list("pk", "username", "display_name")
    }
    return StudyLabels(
        dims,
        categories,
        rounds,
        rater_names,
        ann_si=ann_si,
        ann_rater=ann_rater,
        ann_round=ann_round,
        ann_excluded=ann_excluded.astype(bool),
        val_row=val_row,
        val_dim=val_dim,
        val_cat=val_cat,
        res_si=res_si,
        res_excluded=res_excluded,
        res_values=[v if isinstance(v, dict) else {} for v in res_values],
        timings=timings,
    )


def cell_issues(*, study: Study, study_issue_ids: list[int]) -> list[dict]:
    """The issues behind a confusion-matrix cell, in study order, with what a link needs: one query."""
    rows = (
        StudyIssue.objects.filter(study=study, pk__in=study_issue_ids)
        .select_related("issue__repository")
        .order_by("position")
        .only(
            "pk",
            "position",
            "issue__id",
            "issue__title",
            "issue__number",
            "issue__repository__name",
            "issue__repository__display_name",
        )
    )
    return [
        {
            "position": row.position,
            "issue_id": row.issue.pk,
            "title": row.issue.title,
            "number": row.issue.number,
            "repository": row.issue.repository.display_name or row.issue.repository.name,
        }
        for row in rows
    ]


def phase_changes(*, study: Study) -> list[PhaseChange]:
    return list(PhaseChange.objects.filter(study=study).select_related("actor").order_by("-at", "-id")[:20])


__all__ = [
    "BLIND_MESSAGE",
    "FULL",
    "SUMMARY",
    "StudyLabels",
    "agreement_access",
    "agreement_study_for_user",
    "cell_issues",
    "labels_version",
    "phase_changes",
    "study_labels",
]
