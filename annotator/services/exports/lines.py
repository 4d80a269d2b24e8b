"""The final dataset as ready-made CSV and JSON Lines text: the download's fast path.

Byte for byte the same text as ``csv_rows(final_dataset_header(c), final_dataset_rows(c))`` and
``jsonl_lines(final_dataset_records(c))`` (rows.py stays the readable definition; the tests compare the two), at
a fraction of the cost per row, because most of a row repeats across a study:

- the labels are joined in the same query (one row per label, grouped back per issue) and each dimension's are
  rendered once per distinct list (codes, names and paths, already quoted for CSV or encoded for JSON);
- the cells that vary per row (URL, title, note, ...) are quoted or encoded directly, one call each;
- the rendered pieces live in bounded caches, so memory stays flat however many issues a study has.
"""

import json
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring  # the C encoder json.dumps(ensure_ascii=False) uses for strings
from typing import Any

from annotator.exports.jsonl import dumps
from annotator.exports.safe_csv import safe_cell

from .context import LIST_SEPARATOR, ExportContext
from .rows import (
    disputed_keys,
    final_dataset_header,
    repository_name,
    resolved_rows,
)

CACHE_LIMIT = 4096  # distinct id lists per dimension kept rendered; a study has far fewer, the bound keeps memory flat
CSV_SPECIAL = frozenset(',"\r\n')
JSON_FLAGS = {True: "true", False: "false", None: "null"}
FIXED = 14  # columns of _final_rows before the labels


class BoundedCache:
    """``build(key)`` remembered for up to ``limit`` keys; when full it starts over (cheap, and never grows)."""

    __slots__ = ("build", "limit", "values")

    def __init__(self, build: Callable[[Any], Any], limit: int = CACHE_LIMIT) -> None:
        self.build = build
        self.limit = limit
        self.values: dict[Any, Any] = {}

    def __call__(self, key: Any) -> Any:
        try:
            return self.values[key]
        except KeyError:
            if len(self.values) >= self.limit:
                self.values.clear()
            value = self.values[key] = self.build(key)
            return value


def csv_cell(value: Any) -> str:
    """One cell as ``csv_rows`` writes it: formula-safe, quoted only when it holds a comma, quote or line break."""
    text = safe_cell(value)
    if CSV_SPECIAL.isdisjoint(text):
        return text
    return '"' + text.replace('"', '""') + '"'


def csv_text(text: str) -> str:
    """``csv_cell`` for text, with the common case decided inline: a cell that starts with a letter or digit is never
    formula-like (triggers, blanks and invisible characters are none of these), so only the rest go to safe_cell."""
    if not isinstance(text, str) or (text and not text[0].isalnum()):
        text = safe_cell(text)
    if CSV_SPECIAL.isdisjoint(text):
        return text
    return '"' + text.replace('"', '""') + '"'


def json_text(value: Any) -> str:
    """One value as ``dumps`` writes it; strings (nearly every value here) through the C encoder directly."""
    if isinstance(value, str):
        return encode_basestring(value)
    return dumps(value)


def _final_rows(context: ExportContext) -> Iterator[tuple]:
    """rows.py's rows, with the labels of each dimension as a tuple (None when the dimension is absent) after the
    fixed columns, and methods as JSON text: each distinct value is rendered once, not once per row."""
    keys = [dimension.key for dimension in context.dimensions]
    for row, labels in resolved_rows(context, methods_as_text=True):
        yield (*row, *[tuple(labels[key]) if key in labels else None for key in keys])


def _ids(text: str | None) -> Any:
    return json.loads(text) if text is not None else None


def _label_caches(context: ExportContext, render: Callable[[Any, Any], str]) -> list[BoundedCache]:
    """One cache per dimension: the tuple of its labels (None when absent) -> ``render(dimension, labels)``."""
    return [
        BoundedCache(lambda key, d=dimension: render(d, list(key) if key is not None else None))
        for dimension in context.dimensions
    ]


# --- CSV ------------------------------------------------------------------------------------------------


def final_dataset_csv_lines(context: ExportContext) -> Iterator[str]:
    """The CSV file line by line (``\\r\\n`` endings), header first."""
    yield ",".join(csv_cell(name) for name in final_dataset_header(context)) + "\r\n"

    def cells(dimension, ids) -> str:  # code, name[, path]: joined, formula-safe and quoted
        parts = [LIST_SEPARATOR.join(context.codes(ids)), LIST_SEPARATOR.join(context.names(ids))]
        if dimension.key in context.hierarchical:
            parts.append(LIST_SEPARATOR.join(context.paths(ids)))
        return ",".join(csv_cell(part) for part in parts)

    labels = _label_caches(context, cells)
    width = len(labels)
    repository = BoundedCache(lambda pair: csv_cell(repository_name(*pair)))
    # method, disputed dimensions, reason, excluded, why excluded
    tail = BoundedCache(
        lambda key: ",".join(
            csv_cell(value) for value in (key[0], LIST_SEPARATOR.join(disputed_keys(key[1])), *key[2:])
        )
    )
    for row in _final_rows(context):
        position, round_number, url, owner, repo, number, title, _methods, method, keys = row[:10]
        reason, excluded, excluded_reason, _note = row[10:FIXED]
        label_cells = ",".join([labels[k](row[FIXED + k]) for k in range(width)])
        yield (
            f"{position},{round_number},"
            f"{csv_text(url)},{repository((owner, repo))},{'' if number is None else number},{csv_text(title)},"
            f"{label_cells},{tail((method, keys, reason, excluded, excluded_reason))}\r\n"
        )


# --- JSON Lines -----------------------------------------------------------------------------------------


def final_dataset_json_texts(context: ExportContext) -> Iterator[str]:
    """Each record of ``final_dataset_records`` as the JSON text ``dumps`` gives it, without a line end."""

    def member(dimension, ids) -> str:  # '"key": {...}' of the "labels" object, '' when the dimension is absent
        if ids is None:
            return ""
        label = {"codes": context.codes(ids), "names": context.names(ids)}
        if dimension.key in context.hierarchical:
            label["paths"] = context.paths(ids)
        return f"{json_text(dimension.key)}: {dumps(label)}"

    labels = _label_caches(context, member)
    width = len(labels)
    methods_text = BoundedCache(lambda text: dumps(_ids(text) or {}))
    repository = BoundedCache(lambda pair: json_text(repository_name(*pair)))
    disputed = BoundedCache(lambda keys: dumps(disputed_keys(keys)))
    for row in _final_rows(context):
        position, round_number, url, owner, repo, number, title, methods, method, keys = row[:10]
        reason, excluded, excluded_reason, note = row[10:FIXED]
        members = [labels[k](row[FIXED + k]) for k in range(width)]
        yield (
            f'{{"position": {position}, "round": {round_number}, '
            f'"issue_url": {json_text(url)}, "repository": {repository((owner, repo))}, '
            f'"number": {"null" if number is None else number}, "title": {json_text(title)}, '
            f'"labels": {{{", ".join([m for m in members if m])}}}, "methods": {methods_text(methods)}, '
            f'"method": {json_text(method)}, "disagreements": {disputed(keys)}, '
            f'"disagreement_reason": {json_text(reason)}, '
            f'"excluded": {JSON_FLAGS[excluded]}, "excluded_reason": {json_text(excluded_reason)}, '
            f'"note": {json_text(context.text(note))}}}'
        )


def final_dataset_jsonl_lines(context: ExportContext) -> Iterator[str]:
    for text in final_dataset_json_texts(context):
        yield text + "\n"
