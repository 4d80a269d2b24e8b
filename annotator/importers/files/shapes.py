"""The shapes of a file: a JSON array (or one object), JSON Lines, CSV. Each yields (location, record).

Everything here reads a binary stream a chunk at a time, so memory stays flat in the size of the
file: it is bounded by the largest single record (MAX_RECORD_CHARS), not by the file.
"""

import codecs
import csv
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from ..records import IssueRecord, RecordProblem

FORMATS = ("json", "jsonl", "csv")
CHUNK_BYTES = 1024 * 1024
# One record (a JSON Lines line, an element of an array, a CSV row) may hold a long issue with all
# its comments; anything larger is refused rather than read into memory.
MAX_RECORD_CHARS = 64 * 1024 * 1024
# Problems kept in full: enough to fix a file; the counts say how many there were in all.
KEPT_PROBLEMS = 1000
# Python refuses to convert longer digit strings to int (a guard against slow conversions).
MAX_INT_DIGITS = 4000
_WS = re.compile(r"[ \t\n\r]*")
_LONE_CR = re.compile(r"(?<=\r)(?!\n)")


@dataclass(slots=True)
class ParseResult:
    records: list[IssueRecord]
    problems: list[RecordProblem]  # the first KEPT_PROBLEMS of them
    total: int  # records seen, valid or not
    format: str
    invalid: int = 0  # records with at least one problem (a problem may also concern the whole file)
    problem_count: int = 0  # all problems, kept or not
    _last_location: str | None = field(default=None, repr=False)

    def add_problem(self, problem: RecordProblem) -> None:
        self.problem_count += 1
        if problem.location != self._last_location:
            self.invalid += 1
            self._last_location = problem.location
        if len(self.problems) < KEPT_PROBLEMS:
            self.problems.append(problem)

    @property
    def has_problems(self) -> bool:
        return self.problem_count > 0


class NotANumber:
    """What a JSON NaN, Infinity, overflowing float or over-long integer is read as: no database stores it."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text if len(self.text) < 40 else f"{self.text[:20]}...({len(self.text)} digits)"


def _parse_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else NotANumber(text)


def _parse_int(text: str) -> Any:
    return int(text) if len(text) <= MAX_INT_DIGITS else NotANumber(text)


DECODER = json.JSONDecoder(parse_constant=NotANumber, parse_float=_parse_float, parse_int=_parse_int)


def json_loads(text: str) -> Any:
    return DECODER.decode(text)


class FileStop(Exception):
    """The rest of the file cannot be read; the problem says where and why."""

    def __init__(self, problem: RecordProblem):
        super().__init__(str(problem))
        self.problem = problem


# --------------------------------------------------------------------------- reading text


class TextChunks:
    """UTF-8 text of a binary stream, a chunk at a time, with the first chunk available for a peek."""

    def __init__(self, stream: IO[bytes], name: str):
        self.stream = stream
        self.name = name
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self._line = 1  # line of the first byte not yet decoded
        self._pushed: list[str] = []
        self._done = False

    def read(self) -> str | None:
        """The next chunk of text, None at the end."""
        if self._pushed:
            return self._pushed.pop()
        while not self._done:
            data = self.stream.read(CHUNK_BYTES)
            self._done = not data
            try:
                text = self._decoder.decode(data, final=self._done)
            except UnicodeDecodeError as exc:
                line = self._line + bytes(exc.object[: exc.start]).count(b"\n")
                where = f"{self.name} line {line}"
                message = "the file is not UTF-8 text; save it as UTF-8 and try again"
                raise FileStop(RecordProblem(where, "", message)) from None
            self._line += data.count(b"\n")
            if text:
                return text
        return None

    def push_back(self, text: str) -> None:
        if text:
            self._pushed.append(text)

    def peek(self, at_least: int) -> str:
        """At least `at_least` characters of what comes next (fewer only at the end), not consumed."""
        parts: list[str] = []
        size = 0
        while size < at_least and (chunk := self.read()) is not None:
            parts.append(chunk)
            size += len(chunk)
        text = "".join(parts)
        self.push_back(text)
        return text

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number, line) with its line ending kept; a line longer than MAX_RECORD_CHARS stops the file."""
        number = 1
        pending: list[str] = []
        pending_size = 0
        while (chunk := self.read()) is not None:
            start = 0
            while (end := chunk.find("\n", start)) != -1:
                piece = chunk[start : end + 1]
                if pending:
                    pending.append(piece)
                    piece, pending, pending_size = "".join(pending), [], 0
                yield number, piece
                number += 1
                start = end + 1
            if start < len(chunk):
                pending.append(chunk[start:])
                pending_size += len(chunk) - start
                if pending_size > MAX_RECORD_CHARS:
                    raise FileStop(_too_long(f"{self.name} line {number}", "line"))
        if pending:
            yield number, "".join(pending)


def _too_long(where: str, what: str) -> RecordProblem:
    limit = MAX_RECORD_CHARS // (1024 * 1024)
    return RecordProblem(where, "", f"this {what} is longer than {limit} MB; split the record or the file")


# --------------------------------------------------------------------------- format


def detect_format(name: str, text: str) -> str:
    """By extension first (.json / .jsonl / .ndjson / .csv), else by the first character of the content.

    `text` is the start of the file (at least its first line when it starts with '{').
    """
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


def sniff_format(chunks: TextChunks, name: str) -> str:
    head = chunks.peek(64 * 1024)
    start = _WS.match(head).end()
    if head[start : start + 1] == "{" and "\n" not in head[start:]:
        head = chunks.peek(MAX_RECORD_CHARS)  # the first line is long: read to its end to decide
    return detect_format(name, head)


def _looks_like_json_lines(text: str, start: int) -> bool:
    try:
        _, end = DECODER.raw_decode(text, start)
    except (json.JSONDecodeError, RecursionError):
        first_line = text[start:].split("\n", 1)[0]
        try:
            json_loads(first_line)
        except (json.JSONDecodeError, RecursionError):
            return False
        return True
    return _WS.match(text, end).end() != len(text)


# --------------------------------------------------------------------------- JSON Lines


def json_lines_items(chunks: TextChunks, result: ParseResult) -> Iterator[tuple[str, Any]]:
    for number, line in chunks.lines():
        if not line.strip():
            continue
        location = f"{chunks.name} line {number}"
        try:
            obj = json_loads(line)
        except json.JSONDecodeError as exc:
            result.total += 1
            result.add_problem(RecordProblem(location, "", f"not JSON: {exc.msg} (column {exc.colno})"))
            continue
        except RecursionError:
            result.total += 1
            result.add_problem(RecordProblem(location, "", "not JSON this program reads: nested too deeply"))
            continue
        yield location, obj


# --------------------------------------------------------------------------- CSV


def csv_items(chunks: TextChunks, result: ParseResult) -> Iterator[tuple[str, Any]]:
    name = chunks.name
    delimiter = "\t" if name.lower().endswith(".tsv") else ","
    csv.field_size_limit(MAX_RECORD_CHARS)
    reader = csv.reader(_csv_lines(chunks), delimiter=delimiter)
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        return
    columns = [_csv_column(col) for col in header]
    if not ({"url", "html_url"} & set(columns)) or "title" not in columns:
        found = ", ".join(c for c in columns if c) or "nothing"
        message = f"the header row needs 'url' and 'title' columns (found: {found})"
        result.add_problem(RecordProblem(f"{name} line 1", "", message))
        return
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            result.total += 1
            result.add_problem(RecordProblem(f"{name} line {start}", "", f"not CSV: {exc}"))
            return
        location = f"{name} line {start}"
        start = reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        yield location, {col: (cell if cell != "" else None) for col, cell in zip(columns, row, strict=False) if col}


def _csv_lines(chunks: TextChunks) -> Iterator[str]:
    for _number, line in chunks.lines():
        if "\r" in line[:-2]:  # a file with old Mac line endings (lone CR)
            yield from _LONE_CR.split(line)
        else:
            yield line


def _csv_column(name: str) -> str:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    return {"createdat": "created_at", "updatedat": "updated_at", "closedat": "closed_at"}.get(key, key)


# --------------------------------------------------------------------------- JSON


def json_items(chunks: TextChunks, result: ParseResult) -> Iterator[tuple[str, Any]]:
    """Elements of a JSON array one at a time, each with the line it starts on; or the items of one object."""
    reader = _JsonArrayReader(chunks, result)
    yield from reader.items()


class _JsonArrayReader:
    """A window over the text that holds the element being decoded and little more.

    Each element is decoded with the standard library's decoder; when an element runs past the end of
    the window, the window grows (doubling, so a long element costs linear time) up to MAX_RECORD_CHARS.
    """

    def __init__(self, chunks: TextChunks, result: ParseResult):
        self.chunks = chunks
        self.name = chunks.name
        self.result = result
        self.buf = ""
        self.pos = 0
        self.line = 1  # line of buf[0]
        self.line_start = 0  # where that line starts, relative to buf[0] (<= 0)
        self.eof = False

    def _fill(self, wanted: int | None = None) -> bool:
        """Append at least `wanted` more characters to the window (dropping what was consumed); False at the end."""
        wanted = wanted or CHUNK_BYTES
        if self.eof:
            return False
        if self.pos:
            self.line += self.buf.count("\n", 0, self.pos)
            newline = self.buf.rfind("\n", 0, self.pos)
            self.line_start = newline + 1 - self.pos if newline >= 0 else self.line_start - self.pos
            self.buf, self.pos = self.buf[self.pos :], 0
        parts, size = [self.buf], 0
        while size < wanted:
            chunk = self.chunks.read()
            if chunk is None:
                self.eof = True
                break
            parts.append(chunk)
            size += len(chunk)
        self.buf = "".join(parts)
        return size > 0

    def _skip_ws(self) -> str:
        """The next non-blank character ('' at the end), not consumed."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or not self._fill():
                return self.buf[self.pos : self.pos + 1]

    def _line_at(self, pos: int) -> int:
        return self.line + self.buf.count("\n", 0, pos)

    def _decode(self, *, after: int | None = None) -> tuple[Any, int] | None:
        """The value that starts at pos and where it ends; None (problem recorded) if it cannot be read."""
        while True:
            try:
                obj, end = DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                # Cut off by the end of the window rather than malformed: read more and try again.
                cut = exc.pos >= len(self.buf) - 8 or exc.msg.startswith("Unterminated string")
                if cut and self._grow():
                    continue
                self._problem(exc, after=after)
                return None
            except RecursionError:
                where = f"{self.name} line {self._line_at(self.pos)}"
                self.result.add_problem(RecordProblem(where, "", "not JSON this program reads: nested too deeply"))
                return None
            if end >= len(self.buf) and self._grow():  # a number or word may go on in the next chunk
                continue
            return obj, end

    def _grow(self) -> bool:
        if len(self.buf) - self.pos > MAX_RECORD_CHARS:
            raise FileStop(_too_long(f"{self.name} line {self._line_at(self.pos)}", "record"))
        return self._fill(max(CHUNK_BYTES, len(self.buf) - self.pos))

    def _problem(self, exc: json.JSONDecodeError, *, after: int | None = None) -> None:
        line = self._line_at(exc.pos)
        newline = self.buf.rfind("\n", 0, exc.pos)
        column = exc.pos - (newline + 1 if newline >= 0 else self.line_start) + 1
        message = f"not JSON: {exc.msg} (line {line}, column {column})"
        if after is not None:
            message += f"; records after record {after} could not be read"
        self.result.add_problem(RecordProblem(f"{self.name} line {line}", "", message))

    def _error(self, message: str, *, after: int | None = None) -> None:
        self._problem(json.JSONDecodeError(message, self.buf, self.pos), after=after)

    def items(self) -> Iterator[tuple[str, Any]]:
        first = self._skip_ws()
        if first == "{":
            yield from self._one_object()
            return
        if first != "[":
            where = f"{self.name} line {self._line_at(self.pos)}"
            self.result.add_problem(RecordProblem(where, "", "not JSON: expected '[' (an array of issues) or '{'"))
            return
        self.pos += 1
        index = 0
        if self._skip_ws() == "]":
            self.pos += 1
            self._check_trailing()
            return
        while True:
            line = self._line_at(self.pos)
            decoded = self._decode(after=index)
            if decoded is None:
                return
            obj, self.pos = decoded
            index += 1
            yield f"{self.name} record {index} (line {line})", obj
            char = self._skip_ws()
            if char == "]":
                self.pos += 1
                self._check_trailing()
                return
            if char != ",":
                self._error("Expecting ',' delimiter or ']'", after=index)
                return
            self.pos += 1
            self._skip_ws()

    def _check_trailing(self) -> None:
        if self._skip_ws() != "":
            self._error("Extra data after the array")

    def _one_object(self) -> Iterator[tuple[str, Any]]:
        """A single object: either one record or a search-API page {"items": [...]}."""
        decoded = self._decode()
        if decoded is None:
            return
        obj, self.pos = decoded
        items = obj.get("items") if isinstance(obj.get("items"), list) else [obj]
        for index, item in enumerate(items, start=1):
            yield f"{self.name} record {index}", item
