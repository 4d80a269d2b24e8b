"""The SQL of the rater's autosave and submit: few statements, few round trips, no ORM compilation.

Saving a draft is the most frequent write of the product (every few seconds per rater), so its
statements are written out here once instead of being compiled by the ORM on every request; the
services in annotations.py keep every rule (who may write, optimistic locking, validation,
history, progress counters) and call these two steps:

1. `lock_and_take` locks the annotation and its assignment (for a submit, the study issue first),
   reads them with what validation needs (the study's taxonomy version and dimensions), and deletes
   the annotation's labels, returning them for the history snapshot.
2. `write_batch` runs the writes (new labels, the annotation, the assignment and its progress
   counter when its status changes, the history entry) and ends with a read of the issue's
   assignment statuses, which tells a submit whether every rater is done.

On PostgreSQL each step is one round trip: psycopg sends several statements in one message when
parameters are bound on the client, which Django does; and each statement is prepared once per
connection (PREPARE, then EXECUTE): planning these joins costs several times their execution.
Every statement after a lock starts after the lock is granted, so it sees the latest committed state
(READ COMMITTED takes a snapshot per statement). On SQLite (one writer at a time, in-process) the
statements simply run one by one.
Identifiers come from the models' metadata; every value is a parameter.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection, connections

from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    RaterProgress,
    Resolution,
    Study,
    StudyIssue,
)
from taxonomy.models import TaxonomyVersion

STUDY_DIMENSIONS = Study.dimensions.through


@dataclass(slots=True)
class LockedAnnotation:
    """An annotation, locked, with its assignment and study issue attached (model instances)."""

    annotation: Annotation
    taxonomy_version_id: int
    version_published_at: datetime | None
    study_dimension_ids: list[int]  # empty: the study labels every dimension of its version
    old_values: list[tuple[int, int]]  # (dimension id, category id) of the labels just deleted


def _q(name: str) -> str:
    # How PostgreSQL and SQLite both quote identifiers (connection.ops.quote_name), without a per-call lookup
    # of the connection: these strings are built on every autosave.
    return f'"{name}"'


def _table(model) -> str:
    return _q(model._meta.db_table)


def _column(model, field: str) -> str:
    return _q(model._meta.get_field(field).column)


def _select_list(model, alias: str) -> str:
    return ", ".join(f"{alias}.{_q(field.column)}" for field in model._meta.concrete_fields)


def _is_postgresql() -> bool:
    return connection.vendor == "postgresql"


def _joins() -> str:
    an, asg, si, st, tv = Annotation, Assignment, StudyIssue, Study, TaxonomyVersion
    return (
        f"FROM {_table(an)} an "
        f"JOIN {_table(asg)} asg ON asg.{_q('id')} = an.{_column(an, 'assignment')} "
        f"JOIN {_table(si)} si ON si.{_q('id')} = asg.{_column(asg, 'study_issue')} "
        f"JOIN {_table(st)} st ON st.{_q('id')} = si.{_column(si, 'study')} "
        f"JOIN {_table(tv)} tv ON tv.{_q('id')} = st.{_column(st, 'taxonomy_version')} "
    )


def _row_sql(*, with_old_values: bool) -> str:
    return _row_sql_for(connection.vendor, with_old_values)


@cache
def _row_sql_for(vendor: str, with_old_values: bool) -> str:
    """The annotation, assignment and study issue columns, the version's id and publication time, the
    study's dimension ids (comma-separated) and, on PostgreSQL, the deleted labels ("dimension:category,...")."""
    through = STUDY_DIMENSIONS
    aggregate = "string_agg(CAST({} AS text), ',')" if vendor == "postgresql" else "group_concat({}, ',')"
    dimension_ids = (
        f"(SELECT {aggregate.format('sd.' + _column(through, 'dimension'))} FROM {_table(through)} sd "
        f"WHERE sd.{_column(through, 'study')} = st.{_q('id')})"
    )
    columns = [
        _select_list(Annotation, "an"),
        _select_list(Assignment, "asg"),
        _select_list(StudyIssue, "si"),
        f"tv.{_q('id')}",
        f"tv.{_column(TaxonomyVersion, 'published_at')}",
        dimension_ids,
    ]
    prefix = ""
    if with_old_values:
        value = AnnotationValue
        pair = f"CAST({_column(value, 'dimension')} AS text) || ':' || CAST({_column(value, 'category')} AS text)"
        prefix = (
            f"WITH old AS (DELETE FROM {_table(value)} WHERE {_column(value, 'annotation')} = %s "
            f"RETURNING {_column(value, 'dimension')}, {_column(value, 'category')}) "
        )
        columns.append(f"(SELECT string_agg({pair}, ',') FROM old)")
    return f"{prefix}SELECT {', '.join(columns)} {_joins()}WHERE an.{_q('id')} = %s"


@cache
def _lock_sql(*, study_issue_first: bool) -> tuple[str, ...]:
    """Statements that take the locks, in the order every service takes them: study issue, annotation, assignment."""
    statements = []
    if study_issue_first:
        an, asg, si = Annotation, Assignment, StudyIssue
        statements.append(
            f"SELECT si.{_q('id')} FROM {_table(si)} si WHERE si.{_q('id')} = "
            f"(SELECT asg.{_column(asg, 'study_issue')} FROM {_table(asg)} asg JOIN {_table(an)} an "
            f"ON an.{_column(an, 'assignment')} = asg.{_q('id')} WHERE an.{_q('id')} = %s) FOR UPDATE"
        )
    statements.append(
        f"SELECT an.{_q('id')} FROM {_table(Annotation)} an JOIN {_table(Assignment)} asg "
        f"ON asg.{_q('id')} = an.{_column(Annotation, 'assignment')} WHERE an.{_q('id')} = %s FOR UPDATE OF an, asg"
    )
    return tuple(statements)


def lock_and_take(*, annotation_id: int, study_issue_first: bool) -> LockedAnnotation | None:
    """Lock the annotation (and its study issue first, for a submit), read it and delete its labels.

    Returns None when there is no such annotation. The caller's transaction must roll back if it
    refuses the change after this (the labels are already deleted).
    """
    with connection.cursor() as cursor:
        if _is_postgresql():
            locks = [(sql, [annotation_id]) for sql in _lock_sql(study_issue_first=study_issue_first)]
            _execute(cursor, [*locks, (_row_sql(with_old_values=True), [annotation_id, annotation_id])])
            row = cursor.fetchone()
            if row is None:
                return None
            *row, old = row
            old_values = [tuple(int(part) for part in pair.split(":")) for pair in old.split(",")] if old else []
        else:
            cursor.execute(_row_sql(with_old_values=False), [annotation_id])
            row = cursor.fetchone()
            if row is None:
                return None
            value = AnnotationValue
            cursor.execute(
                f"DELETE FROM {_table(value)} WHERE {_column(value, 'annotation')} = %s "
                f"RETURNING {_column(value, 'dimension')}, {_column(value, 'category')}",
                [annotation_id],
            )
            old_values = [(int(d), int(c)) for d, c in cursor.fetchall()]
    return _locked(list(row), old_values)


def _locked(row: list[Any], old_values: list[tuple[int, int]]) -> LockedAnnotation:
    objects = []
    for model in (Annotation, Assignment, StudyIssue):
        fields = model._meta.concrete_fields
        values, row = row[: len(fields)], row[len(fields) :]
        objects.append(model.from_db(connection.alias, [f.attname for f in fields], _converted(fields, values)))
    annotation, assignment, study_issue = objects
    version_id, published_at, dimension_ids = row
    assignment.study_issue = study_issue
    annotation.assignment = assignment
    return LockedAnnotation(
        annotation=annotation,
        taxonomy_version_id=version_id,
        version_published_at=_converted_datetime(published_at),
        study_dimension_ids=[int(pk) for pk in str(dimension_ids).split(",")] if dimension_ids else [],
        old_values=old_values,
    )


def _converted(fields, values: list[Any]) -> list[Any]:
    """Database values as the ORM would hand them over (e.g. SQLite's text datetimes, JSON as text)."""
    out = []
    for (converters, expression), value in zip(_converters(tuple(fields)), values, strict=True):
        for converter in converters:
            value = converter(value, expression, connection)
        out.append(value)
    return out


# The ORM's converters of each column, per connection (they are bound to its backend's operations).
_converter_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _converters(fields: tuple) -> list[tuple[list, Any]]:
    per_connection = _converter_cache.setdefault(connections[connection.alias], {})
    found = per_connection.get(fields)
    if found is None:
        found = per_connection[fields] = []
        for field in fields:
            expression = field.get_col(field.model._meta.db_table)
            converters = connection.ops.get_db_converters(expression) + field.get_db_converters(connection)
            found.append((converters, expression))
    return found


def _converted_datetime(value: Any) -> datetime | None:
    field = TaxonomyVersion._meta.get_field("published_at")
    return _converted([field], [value])[0]


# Prepared statements per database connection (they live as long as its session, whatever happens to
# transactions). A connection keeps at most this many; further shapes (e.g. a rater choosing dozens of
# categories at once) run unprepared.
MAX_PREPARED = 64
_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _prepared_form(cursor, sql: str) -> str:
    """PostgreSQL: the statement as EXECUTE of its prepared form (prepared now if this connection has not
    yet), with the same %s parameters; elsewhere, or past MAX_PREPARED, the statement itself."""
    if not _is_postgresql():
        return sql
    names = _prepared.setdefault(connection.connection, set())
    name = "taxonomist_" + hashlib.sha1(sql.encode(), usedforsecurity=False).hexdigest()[:20]
    count = sql.count("%s")
    if name not in names:
        if len(names) >= MAX_PREPARED:
            return sql
        numbered = sql
        for n in range(1, count + 1):
            numbered = numbered.replace("%s", f"${n}", 1)
        # Its own round trip, once: PREPARE is not undone by a rollback, so it must not share a message with
        # statements that may fail, or we could not know whether it ran.
        cursor.execute(f"PREPARE {name} AS {numbered}")
        names.add(name)
    return f"EXECUTE {name}({', '.join(['%s'] * count)})" if count else f"EXECUTE {name}"


def _execute(cursor, statements: list[tuple[str, list[Any]]]) -> None:
    """Run statements, on PostgreSQL as prepared statements in one round trip."""
    if _is_postgresql():
        cursor.execute(
            ";\n".join(_prepared_form(cursor, sql) for sql, _ in statements),
            [param for _, params in statements for param in params],
        )
    else:
        for sql, params in statements:
            cursor.execute(sql, params)


class Batch:
    """Statements sent together (PostgreSQL: one round trip); `run` returns the last statement's rows, if any."""

    def __init__(self) -> None:
        self._statements: list[tuple[str, list[Any]]] = []

    def add(self, sql: str, params: list[Any]) -> None:
        self._statements.append((sql, params))

    def run(self) -> list[tuple]:
        with connection.cursor() as cursor:
            _execute(cursor, self._statements)
            return cursor.fetchall() if cursor.description is not None else []


def _datetime(value: datetime | None) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


def _json(field_model, name: str, value: Any) -> Any:
    return field_model._meta.get_field(name).get_db_prep_value(value, connection)


def add_values(batch: Batch, *, annotation_id: int, pairs: list[tuple[int, int]]) -> None:
    """Insert the annotation's labels: (dimension id, category id) pairs."""
    if not pairs:
        return
    value = AnnotationValue
    columns = ", ".join(_column(value, name) for name in ("annotation", "dimension", "category"))
    rows = ", ".join(["(%s, %s, %s)"] * len(pairs))
    batch.add(
        f"INSERT INTO {_table(value)} ({columns}) VALUES {rows}",
        [param for dimension_id, category_id in pairs for param in (annotation_id, dimension_id, category_id)],
    )


def add_update(batch: Batch, instance, fields: list[str]) -> None:
    """UPDATE the named fields of a model instance (already set on it) by primary key."""
    model = type(instance)
    assignments, params = [], []
    for name in fields:
        field = model._meta.get_field(name)
        assignments.append(f"{_q(field.column)} = %s")
        params.append(field.get_db_prep_save(getattr(instance, field.attname), connection))
    batch.add(
        f"UPDATE {_table(model)} SET {', '.join(assignments)} WHERE {_q(model._meta.pk.column)} = %s",
        [*params, instance.pk],
    )


def add_insert(batch: Batch, instance) -> None:
    """INSERT a new model instance (auto_now fields filled as save() would); the statement returns its id."""
    model = type(instance)
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    params = [field.get_db_prep_save(field.pre_save(instance, add=True), connection) for field in fields]
    batch.add(
        f"INSERT INTO {_table(model)} ({', '.join(_q(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {_q(model._meta.pk.column)}",
        params,
    )


def add_progress_move(batch: Batch, *, study_issue: StudyIssue, rater_id: int, old: str, new: str) -> None:
    """Move one assignment from counter `old` to counter `new` (statuses double as the counters' names)."""
    progress = RaterProgress
    old_column, new_column = _column(progress, old), _column(progress, new)
    batch.add(
        f"UPDATE {_table(progress)} SET {old_column} = {old_column} - 1, {new_column} = {new_column} + 1 "
        f"WHERE {_column(progress, 'study')} = %s AND {_column(progress, 'round')} = %s "
        f"AND {_column(progress, 'rater')} = %s",
        [study_issue.study_id, study_issue.round_id, rater_id],
    )


def add_history(
    batch: Batch, *, annotation: Annotation, actor_id: int | None, action: str, at: datetime, before: dict, after: dict
) -> None:
    history = AnnotationHistory
    names = ["annotation", "actor", "action", "version", "at", "before", "after"]
    batch.add(
        f"INSERT INTO {_table(history)} ({', '.join(_column(history, name) for name in names)}) "
        f"VALUES ({', '.join(['%s'] * len(names))})",
        [
            annotation.pk,
            actor_id,
            action,
            annotation.version,
            _datetime(at),
            _json(history, "before", before),
            _json(history, "after", after),
        ],
    )


def add_issue_statuses(batch: Batch, *, study_issue: StudyIssue, rater_id: int) -> None:
    """Last statement: each assignment status of the issue, and whether the rater's progress counter exists."""
    asg, progress = Assignment, RaterProgress
    batch.add(
        f"SELECT asg.{_column(asg, 'status')}, (SELECT COUNT(*) FROM {_table(progress)} p "
        f"WHERE p.{_column(progress, 'study')} = %s AND p.{_column(progress, 'round')} = %s "
        f"AND p.{_column(progress, 'rater')} = %s) FROM {_table(asg)} asg "
        f"WHERE asg.{_column(asg, 'study_issue')} = %s",
        [study_issue.study_id, study_issue.round_id, rater_id, study_issue.pk],
    )


def lock_issue_annotations(*, study_issue_id: int) -> tuple[list[tuple[Annotation, list[tuple[int, int]]]], int | None]:
    """Every annotation of the issue, locked, with its labels ((dimension id, category id) pairs), in the
    order of its assignment, and the id of the issue's resolution if it has one: one statement. Run after
    this transaction's own writes, it sees them; run under the study issue's lock, which every service
    that writes a resolution takes first, the resolution id cannot change under the caller."""
    an, asg, value = Annotation, Assignment, AnnotationValue
    aggregate = "string_agg({}, ',')" if _is_postgresql() else "group_concat({}, ',')"
    pair = f"CAST(v.{_column(value, 'dimension')} AS text) || ':' || CAST(v.{_column(value, 'category')} AS text)"
    labels = (
        f"(SELECT {aggregate.format(pair)} FROM {_table(value)} v "
        f"WHERE v.{_column(value, 'annotation')} = an.{_q('id')})"
    )
    lock = " FOR UPDATE OF an" if _is_postgresql() else ""
    resolution = (
        f"(SELECT r.{_q('id')} FROM {_table(Resolution)} r WHERE r.{_column(Resolution, 'study_issue')} = "
        f"asg.{_column(asg, 'study_issue')})"
    )
    sql = (
        f"SELECT {_select_list(an, 'an')}, {labels}, {resolution} FROM {_table(an)} an "
        f"JOIN {_table(asg)} asg ON asg.{_q('id')} = an.{_column(an, 'assignment')} "
        f"WHERE asg.{_column(asg, 'study_issue')} = %s ORDER BY asg.{_q('id')}{lock}"
    )
    with connection.cursor() as cursor:
        _execute(cursor, [(sql, [study_issue_id])])
        rows = cursor.fetchall()
    fields = an._meta.concrete_fields
    names = [field.attname for field in fields]
    out = []
    for *values, pairs, _resolution in rows:
        annotation = an.from_db(connection.alias, names, _converted(fields, values))
        parsed = [tuple(int(part) for part in item.split(":")) for item in pairs.split(",")] if pairs else []
        out.append((annotation, parsed))
    return out, (rows[0][-1] if rows else None)
