"""The shapes of a file: a JSON array (or one object), JSON Lines, CSV. Each yields (location, record)."""

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..records import IssueRecord, RecordProblem

FORMATS = ("json", "jsonl", "csv")
_WS = re.compile(r"[ \t\n\r]*")


@dataclass(slots=True)
class ParseResult:
    records: list[IssueRecord]
    problems: list[RecordProblem]
    total: int  # records seen, valid or not
    format: str

    @property
    def invalid(self) -> int:
        """Records with at least one problem (a problem may also concern the whole file)."""
        return len({p.location for p in self.problems})


def detect_format(name: str, text: str) -> str:
    """By extension first (.json / .jsonl / .ndjson / .csv), else by the first character of the content."""
    lower = name.lower()
    if lower.endswith((".jsonl", ".ndjson", ".jsonlines")):
        return "jsonl"
    if lower.endswith((".csv", ".tsv")):
        return "csv"
    start = _WS.match(text).end()
    first = text[start : start + 1]
    if first == "[":
        return "json"
    if first == "{":
        # One pretty-printed object is JSON; one object per line is JSON Lines.
        return "jsonl" if _looks_like_json_lines(text, start) else "json"
    return "json" if lower.endswith(".json") else "csv"


def json_items(text: str, name: str, result: ParseResult) -> Iterator[tuple[str, Any]]:
    """Elements of a JSON array one at a time, each with the line it starts on."""
    decoder = json.JSONDecoder()
    pos = _WS.match(text).end()
    if text[pos : pos + 1] == "{":
        # A single object: either one record or a search-API page {"items": [...]}.
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            result.problems.append(_json_problem(name, exc))
            return
        items = obj.get("items") if isinstance(obj.get("items"), list) else [obj]
        for index, item in enumerate(items, start=1):
            yield f"{name} record {index}", item
        return
    if text[pos : pos + 1] != "[":
        where = f"{name} line {text.count(chr(10), 0, pos) + 1}"
        result.problems.append(RecordProblem(where, "", "not JSON: expected '[' (an array of issues) or '{'"))
        return
    line, last, index = 1, 0, 0
    pos = _WS.match(text, pos + 1).end()
    if text[pos : pos + 1] == "]":
        return
    while True:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            result.problems.append(_json_problem(name, exc, after=index))
            return
        index += 1
        line += text.count("\n", last, pos)
        last = pos
        yield f"{name} record {index} (line {line})", obj
        pos = _WS.match(text, end).end()
        char = text[pos : pos + 1]
        if char == "]":
            rest = _WS.match(text, pos + 1).end()
            if rest != len(text):
                err = json.JSONDecodeError("Extra data after the array", text, rest)
                result.problems.append(_json_problem(name, err))
            return
        if char != ",":
            err = json.JSONDecodeError("Expecting ',' delimiter or ']'", text, pos)
            result.problems.append(_json_problem(name, err, after=index))
            return
        pos = _WS.match(text, pos + 1).end()


def json_lines_items(text: str, name: str, result: ParseResult) -> Iterator[tuple[str, Any]]:
    loads = json.loads
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        location = f"{name} line {number}"
        try:
            obj = loads(line)
        except json.JSONDecodeError as exc:
            result.total += 1
            result.problems.append(RecordProblem(location, "", f"not JSON: {exc.msg} (column {exc.colno})"))
            continue
        yield location, obj


def csv_items(text: str, name: str, result: ParseResult) -> Iterator[tuple[str, Any]]:
    # Issue bodies can be far longer than the csv module's default 128 KB field limit.
    csv.field_size_limit(max(csv.field_size_limit(), 256 * 1024 * 1024))
    delimiter = "\t" if name.lower().endswith(".tsv") else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        return
    columns = [_csv_column(col) for col in header]
    if not ({"url", "html_url"} & set(columns)) or "title" not in columns:
        found = ", ".join(c for c in columns if c) or "nothing"
        message = f"the header row needs 'url' and 'title' columns (found: {found})"
        result.problems.append(RecordProblem(f"{name} line 1", "", message))
        return
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            result.total += 1
            result.problems.append(RecordProblem(f"{name} line {start}", "", f"not CSV: {exc}"))
            return
        location = f"{name} line {start}"
        start = reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        yield location, {col: (cell if cell != "" else None) for col, cell in zip(columns, row, strict=False) if col}


def _csv_column(name: str) -> str:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    return {"createdat": "created_at", "updatedat": "updated_at", "closedat": "closed_at"}.get(key, key)


def _looks_like_json_lines(text: str, start: int) -> bool:
    try:
        _, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        first_line = text[start:].split("\n", 1)[0]
        try:
            json.loads(first_line)
        except json.JSONDecodeError:
            return False
        return True
    return _WS.match(text, end).end() != len(text)


def _json_problem(name: str, exc: json.JSONDecodeError, *, after: int | None = None) -> RecordProblem:
    message = f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if after is not None:
        message += f"; records after record {after} could not be read"
    return RecordProblem(f"{name} line {exc.lineno}", "", message)
