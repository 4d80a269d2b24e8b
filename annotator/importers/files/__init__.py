"""Issues from files: a JSON array, JSON Lines or CSV, turned into IssueRecords. Pure: no Django.

A JSON record may be a GitHub REST issue object (snake_case), a `gh issue list --json` object
(camelCase, comments embedded) or a minimal record (url + title, e.g. a Stack Overflow post).
Every problem is reported with where it is (line / record) and which field, so a person can fix
the file; nothing here decides whether to import anyway.
"""

from ..records import RecordProblem, RepositoryRef
from .fields import InvalidRecord, normalise_url, parse_datetime, parse_repository_ref, record_from_mapping
from .shapes import FORMATS, ParseResult, csv_items, detect_format, json_items, json_lines_items

__all__ = [
    "ParseResult",
    "detect_format",
    "normalise_url",
    "parse_datetime",
    "parse_issue_file",
    "parse_repository_ref",
    "record_from_mapping",
]


def parse_issue_file(
    data: bytes | str, *, name: str, repository: RepositoryRef | None = None, file_format: str | None = None
) -> ParseResult:
    """Parse a whole file. Records with problems are left out of `records` and listed in `problems`."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            where = f"{name} byte {exc.start + 1}"
            problem = RecordProblem(where, "", "the file is not UTF-8 text; save it as UTF-8 and try again")
            return ParseResult([], [problem], 0, file_format or "unknown")
    else:
        text = data.removeprefix("\ufeff")
    fmt = file_format or detect_format(name, text)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    result = ParseResult([], [], 0, fmt)
    items = {"json": json_items, "jsonl": json_lines_items, "csv": csv_items}[fmt](text, name, result)
    for location, obj in items:
        result.total += 1
        try:
            result.records.append(record_from_mapping(obj, repository=repository))
        except InvalidRecord as exc:
            result.problems.extend(RecordProblem(location, p.field, p.message) for p in exc.problems)
    return result
