"""Streamed JSON: valid, lazy, and with every special value written the way consumers expect."""

import enum
import json
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.exports.jsonl import dumps, json_array_chunks, json_document_chunks, jsonl_lines

ID = UUID("12345678-1234-5678-1234-567812345678")


class Method(enum.Enum):
    ADJUDICATED = "adjudicated"


@dataclass
class Point:
    x: int
    when: date


RECORD = {
    "created": datetime(2025, 3, 4, 5, 6, 7, 890000, tzinfo=UTC),
    "naive": datetime(2025, 3, 4, 5, 6, 7),
    "day": date(2025, 3, 4),
    "at": time(12, 30),
    "id": ID,
    "share": Decimal("45.10"),
    "labels": {"oom", "hang", "crash"},
    "frozen": frozenset({3, 1, 2}),
    "method": Method.ADJUDICATED,
    "point": Point(1, date(2024, 1, 1)),
    "spent": timedelta(hours=1, minutes=2, seconds=3.5),
    "title": "Ünïcode — 中文 \u2028 line",
    "nested": [{"when": date(2020, 1, 1)}],
}
EXPECTED = {
    "created": "2025-03-04T05:06:07.890000+00:00",
    "naive": "2025-03-04T05:06:07",
    "day": "2025-03-04",
    "at": "12:30:00",
    "id": "12345678-1234-5678-1234-567812345678",
    "share": "45.10",
    "labels": ["crash", "hang", "oom"],
    "frozen": [1, 2, 3],
    "method": "adjudicated",
    "point": {"x": 1, "when": "2024-01-01"},
    "spent": "P0DT1H2M3.5S",
    "title": "Ünïcode — 中文 \u2028 line",
    "nested": [{"when": "2020-01-01"}],
}


def test_special_values_are_serialised():
    assert json.loads(dumps(RECORD)) == EXPECTED


def test_text_stays_utf8_rather_than_ascii_escapes():
    assert "中文" in dumps({"t": "中文"})
    assert "\\u" not in dumps({"t": "Ünïcode"})


def test_a_set_of_mixed_types_is_still_sorted_deterministically():
    assert json.loads(dumps({1, "a"})) == json.loads(dumps({"a", 1})) == [1, "a"]


@pytest.mark.parametrize(
    ("delta", "text"), [(timedelta(days=2), "P2DT0H0M0S"), (timedelta(seconds=-90), "-P0DT0H1M30S")]
)
def test_durations_are_iso_8601(delta, text):
    assert json.loads(dumps(delta)) == text


def test_nan_and_infinity_become_null_so_the_json_stays_strict():
    text = dumps({"kappa": math.nan, "alpha": [math.inf, 0.5], "p": Point(1, date(2024, 1, 1))})
    assert json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} is not JSON")) == {
        "kappa": None,
        "alpha": [None, 0.5],
        "p": {"x": 1, "when": "2024-01-01"},
    }


def test_an_unknown_type_fails_with_a_message_naming_it():
    with pytest.raises(TypeError, match="Cannot write object values to JSON"):
        dumps({"x": object()})


def test_jsonl_is_one_valid_line_per_record():
    records = [RECORD, {"body": "two\nlines"}, {}]
    lines = list(jsonl_lines(records))
    assert len(lines) == 3
    assert all(line.endswith("\n") and line.count("\n") == 1 for line in lines)
    assert [json.loads(line) for line in lines] == [EXPECTED, {"body": "two\nlines"}, {}]


def test_json_array_is_valid_and_separated_as_documented():
    chunks = list(json_array_chunks([{"a": 1}, {"b": date(2020, 1, 2)}]))
    assert chunks == ["[", '{"a": 1}', ',\n{"b": "2020-01-02"}', "]"]
    assert json.loads("".join(chunks)) == [{"a": 1}, {"b": "2020-01-02"}]


def test_an_empty_array_is_valid():
    assert json.loads("".join(json_array_chunks([]))) == []


def _counting(consumed, count):
    for number in range(count):
        consumed.append(number)
        yield {"n": number}


@pytest.mark.parametrize("stream", [jsonl_lines, json_array_chunks])
def test_records_are_consumed_lazily(stream):
    consumed = []
    chunks = stream(_counting(consumed, 1_000_000))
    first = [next(chunks) for _ in range(3)]
    assert len(consumed) <= 3
    assert first


def test_document_with_a_head_and_a_streamed_array():
    text = "".join(json_document_chunks({"version": 2, "exported": date(2025, 1, 1)}, "issues", [{"n": 1}, {"n": 2}]))
    assert json.loads(text) == {"version": 2, "exported": "2025-01-01", "issues": [{"n": 1}, {"n": 2}]}


def test_document_refuses_a_head_field_that_the_array_would_overwrite():
    with pytest.raises(ValueError, match="both in the head"):
        list(json_document_chunks({"issues": 1}, "issues", []))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10,
)


@given(st.lists(_json, max_size=5))
def test_property_plain_json_round_trips_through_both_streams(records):
    assert json.loads("".join(json_array_chunks(records))) == records
    assert [json.loads(line) for line in jsonl_lines(records)] == records
