"""JSON Lines and streamed JSON arrays, one record at a time.

Values JSON has no type for are written the way data consumers expect: datetimes, dates and times in
ISO 8601, durations as ISO 8601 durations, UUIDs and Decimals as strings (a Decimal keeps its exact digits),
sets as sorted lists, dataclasses as objects, enums by value. NaN and infinities become null, because
strict JSON (RFC 8259) has no spelling for them and most parsers reject ``NaN``. Text is kept as UTF-8
(``ensure_ascii=False``).

Pure Python, no Django: the export views wrap these generators in a streaming response.
"""

import dataclasses
import enum
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import PurePath
from typing import Any
from uuid import UUID


def _iso_duration(value: timedelta) -> str:
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    seconds = value.seconds + value.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    secs_text = f"{secs:.6f}".rstrip("0").rstrip(".")
    return f"{sign}P{value.days}DT{int(hours)}H{int(minutes)}M{secs_text}S"


def _sorted_members(values: set | frozenset) -> list:
    try:
        return sorted(values)
    except TypeError:  # mixed types: order by type, then by text, still deterministic
        return sorted(values, key=lambda v: (type(v).__name__, repr(v)))


def to_jsonable(value: Any) -> Any:
    """The JSON-native form of one value that json cannot encode itself; TypeError names anything unknown."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return _iso_duration(value)
    if isinstance(value, UUID | Decimal | PurePath):
        return str(value)
    if isinstance(value, set | frozenset):
        return _sorted_members(value)
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(f"Cannot write {type(value).__name__} values to JSON; convert them to text or numbers first.")


def _finite(value: Any) -> Any:
    """A copy of plain JSON data with NaN and infinities replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    """Plain JSON data (dicts, lists, str, numbers) with every special value converted."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float) or value is None:
        return value
    return _plain(to_jsonable(value))


def dumps(value: Any, *, indent: int | None = None) -> str:
    """One value as strict JSON text (see the module docstring for how special values are written)."""
    try:
        # Fast path: most records hold no NaN, and json calls to_jsonable only for the values it cannot encode.
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=to_jsonable, indent=indent)
    except ValueError:
        return json.dumps(_finite(_plain(value)), ensure_ascii=False, allow_nan=False, indent=indent)


def jsonl_lines(records: Iterable[Any]) -> Iterator[str]:
    """Yield one line of JSON per record, each ending in ``\\n`` (newlines inside strings are escaped)."""
    for record in records:
        yield dumps(record) + "\n"


def json_array_chunks(records: Iterable[Any]) -> Iterator[str]:
    """Yield a JSON array piece by piece: ``[``, the records separated by ``,\\n``, ``]``."""
    yield "["
    separator = ""
    for record in records:
        yield separator + dumps(record)
        separator = ",\n"
    yield "]"


def json_document_chunks(head: Mapping[str, Any], key: str, records: Iterable[Any]) -> Iterator[str]:
    """Yield a JSON object: the fields of ``head`` and then ``key`` holding the records as a streamed array.

    For exports that carry metadata (taxonomy version, licence, export time) in front of the data.
    """
    if key in head:
        raise ValueError(f"The field {key!r} is both in the head and the streamed records; rename one of them.")
    yield "{"
    for name, value in head.items():
        yield dumps(str(name)) + ": " + dumps(value) + ",\n"
    yield dumps(key) + ": "
    yield from json_array_chunks(records)
    yield "}"
