"""Issues from files: a JSON array, JSON Lines or CSV, turned into IssueRecords. Pure: no Django.

A JSON record may be a GitHub REST issue object (snake_case), a `gh issue list --json` object
(camelCase, comments embedded) or a minimal record (url + title, e.g. a Stack Overflow post).
Every problem is reported with where it is (line / record) and which field, so a person can fix
the file; nothing here decides whether to import anyway. Files are read as streams, a record at a
time, so memory does not grow with the file.
"""

import io
from collections.abc import Iterator
from typing import IO

from ..records import IssueRecord, RecordProblem, RepositoryRef
from .fields import (
    InvalidRecord,
    issue_url_repository,
    normalise_url,
    parse_datetime,
    parse_repository_ref,
    record_from_mapping,
)
from .shapes import (
    FORMATS,
    KEPT_PROBLEMS,
    FileStop,
    ParseResult,
    TextChunks,
    csv_items,
    detect_format,
    json_items,
    json_lines_items,
    sniff_format,
)

__all__ = [
    "KEPT_PROBLEMS",
    "ParseResult",
    "detect_format",
    "issue_url_repository",
    "normalise_url",
    "parse_datetime",
    "parse_issue_file",
    "parse_repository_ref",
    "read_issue_file",
    "record_from_mapping",
]


def read_issue_file(
    stream: IO[bytes],
    *,
    name: str,
    result: ParseResult,
    repository: RepositoryRef | None = None,
    file_format: str | None = None,
) -> Iterator[tuple[str, IssueRecord]]:
    """(location, record) for each valid record, read from the stream as it goes.

    Counts and problems go into `result` (its `records` stay empty: the caller keeps what it needs).
    """
    chunks = TextChunks(stream, name)
    try:
        fmt = file_format or sniff_format(chunks, name)
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
        result.format = fmt
        items = {"json": json_items, "jsonl": json_lines_items, "csv": csv_items}[fmt](chunks, result)
        for location, obj in items:
            result.total += 1
            try:
                record = record_from_mapping(obj, repository=repository)
            except InvalidRecord as exc:
                for p in exc.problems:
                    result.add_problem(RecordProblem(location, p.field, p.message))
                continue
            yield location, record
    except FileStop as stop:
        result.add_problem(stop.problem)


def parse_issue_file(
    data: bytes | str, *, name: str, repository: RepositoryRef | None = None, file_format: str | None = None
) -> ParseResult:
    """Parse a whole file held in memory. Records with problems are left out of `records` and listed in `problems`."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    result = ParseResult([], [], 0, file_format or "unknown")
    for _location, record in read_issue_file(
        io.BytesIO(data), name=name, result=result, repository=repository, file_format=file_format
    ):
        result.records.append(record)
    return result
