"""The schema of a replication package's files, checked record by record before an import writes anything.

A package is shared between teams, so every field is checked: types, lengths, ranges and enumerations
that the database would refuse (NUL characters, lone surrogates, integers beyond their column, dates it
cannot store). Problems read "<file> line <n>: <field>: <what>". Pure: no Django.
"""

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from taxonomy.template_schema import CODE_RE, SLUG_RE

SMALL_INT = 32767  # PositiveSmallIntegerField
INT = 2147483647  # PositiveIntegerField
BIG_INT = 9223372036854775807  # BigIntegerField
TEXT_MAX = 1_000_000  # notes, descriptions, guidelines
PSEUDONYM = r"^[A-Za-z0-9@.+_-]{1,100}\Z"  # becomes a username (Django's allowed characters)

checker = FormatChecker(formats=())


@checker.checks("text", raises=ValueError)
def _text(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if "\x00" in value:
        raise ValueError("contains a NUL character, which no text column can hold")
    value.encode("utf-8")  # a lone surrogate ("\ud800") raises: it is not text
    return True


@checker.checks("date-time", raises=(ValueError, OverflowError))
def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parsed = datetime.fromisoformat(value)
    (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)  # year 1 with an offset overflows
    return True


def _text_schema(max_length: int = TEXT_MAX) -> dict:
    return {"type": "string", "format": "text", "maxLength": max_length}


def _int(maximum: int, minimum: int = 0) -> dict:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def _enum(*values: str) -> dict:
    return {"enum": list(values)}


def _strict(properties: dict, required: tuple[str, ...] = ()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


def _whole(pattern: str) -> str:
    """A ^...$ pattern that also refuses a trailing newline ($ would let one through)."""
    return pattern.removesuffix("$") + r"\Z"


KEY = {"type": "string", "pattern": _whole(SLUG_RE.pattern), "maxLength": 60}
CODE = {"type": "string", "pattern": _whole(CODE_RE.pattern), "maxLength": 120}
URL = {"type": "string", "format": "text", "pattern": r"^https?://", "maxLength": 500}
WHEN = {"anyOf": [{"type": "string", "format": "date-time", "maxLength": 40}, {"type": "null"}]}
DEFS = {
    "json": {
        "anyOf": [
            _text_schema(),
            {"type": ["boolean", "null"]},
            _int(BIG_INT, -BIG_INT),
            {"type": "number", "minimum": -1e300, "maximum": 1e300},
            {"type": "array", "items": {"$ref": "#/$defs/json"}},
            {
                "type": "object",
                "propertyNames": _text_schema(200),
                "additionalProperties": {"$ref": "#/$defs/json"},
            },
        ]
    }
}
JSON_OBJECT = {"type": "object", "propertyNames": _text_schema(200), "additionalProperties": {"$ref": "#/$defs/json"}}

STUDY = _strict(
    {
        "format": {"const": 1},
        "name": {**_text_schema(200), "minLength": 1},
        "slug": _text_schema(200),
        "description": _text_schema(),
        "taxonomy": _strict({"slug": {**KEY, "maxLength": 80}, "version": _int(INT, 1)}, ("slug", "version")),
        "dimensions": {"type": "array", "items": KEY, "minItems": 1, "maxItems": 100, "uniqueItems": True},
        "raters_per_issue": _int(100, 1),
        "assignment_mode": _enum("balanced", "fixed"),
        "blind": {"type": "boolean"},
        "phase": _enum("pilot", "labelling", "adjudication", "published"),
        "guidelines": _text_schema(),
        "agreement_threshold": {"type": "number", "minimum": 0, "maximum": 1},
        "pilot_size": _int(INT),
        "raters": {
            "type": "array",
            "items": {"type": "string", "pattern": PSEUDONYM},
            "maxItems": 1000,
            "uniqueItems": True,
        },
        "rounds": {
            "type": "array",
            "maxItems": 1000,
            "items": _strict(
                {
                    "number": _int(INT, 1),
                    "kind": _enum("pilot", "main"),
                    "filters": JSON_OBJECT,
                    "size": _int(INT),
                    "seed": _int(BIG_INT, -BIG_INT),
                    "stratification": JSON_OBJECT,
                    "pool_size": _int(INT),
                    "drawn": _int(INT),
                },
                ("number",),
            ),
        },
        "exported_at": WHEN,
    },
    ("format", "name", "taxonomy", "dimensions", "raters", "rounds"),
)

ISSUE = _strict(
    {
        "html_url": URL,
        "number": {"anyOf": [_int(BIG_INT), {"type": "null"}]},
        "kind": _enum("issue", "pull", "post"),
        "title": {**_text_schema(1000), "minLength": 1},
        "state": {"anyOf": [_text_schema(20), {"type": "null"}]},
        "state_reason": {"anyOf": [_text_schema(30), {"type": "null"}]},
        "author": {"anyOf": [_text_schema(200), {"type": "null"}]},
        "labels": {"type": "array", "items": _text_schema(200), "maxItems": 1000},
        "created_at": WHEN,
        "updated_at": WHEN,
        "closed_at": WHEN,
    },
    ("html_url", "title"),
)

SAMPLE = _strict({"position": _int(INT), "round": _int(INT, 1), "issue_url": URL}, ("position", "round", "issue_url"))

CODES = {"type": "array", "items": CODE, "maxItems": 1000, "uniqueItems": True}
# A final label the adjudicator settled on a rater's proposal: "proposal: <text>" (the text as the labels file has it).
PROPOSAL_CODE = {"type": "string", "format": "text", "pattern": "^proposal: .", "maxLength": 520}
FINAL_CODES = {**CODES, "items": {"anyOf": [CODE, PROPOSAL_CODE]}}

LABELS = _strict(
    {
        "issue_url": URL,
        "rater": {"type": "string", "pattern": PSEUDONYM},
        "labels": {"type": "object", "propertyNames": KEY, "additionalProperties": CODES},
        "proposals": {"type": "object", "propertyNames": KEY, "additionalProperties": _text_schema(1000)},
        "note": _text_schema(),
        "excluded": {"type": "boolean"},
        "excluded_reason": _enum("", "not_a_bug", "out_of_scope"),
        "confidence": {"enum": [None, 1, 2, 3]},
        "submitted_at": WHEN,
        "time_spent_seconds": {"anyOf": [_int(INT), {"type": "null"}]},
        # The rater's first, independent submission (null when the exporting study had no record of it).
        "independent": {
            "anyOf": [
                {"type": "null"},
                _strict(
                    {
                        "labels": {"type": "object", "propertyNames": KEY, "additionalProperties": CODES},
                        "proposals": {
                            "type": "object",
                            "propertyNames": KEY,
                            "additionalProperties": _text_schema(1000),
                        },
                        "excluded": {"type": "boolean"},
                        "excluded_reason": _enum("", "not_a_bug", "out_of_scope"),
                        "submitted_at": WHEN,
                        "source": _enum("app", "spreadsheet", "package", "history"),
                    },
                    ("labels",),
                ),
            ]
        },
    },
    ("issue_url", "rater", "labels"),
)

METHOD = _enum("unanimous", "negotiated", "adjudicated", "single_coded")

FINAL_LABELS = _strict(
    {
        "position": _int(INT),
        "round": _int(INT, 1),
        "issue_url": URL,
        "repository": {"anyOf": [_text_schema(300), {"type": "null"}]},
        "number": {"anyOf": [_int(BIG_INT), {"type": "null"}]},
        "title": _text_schema(1000),
        "labels": {
            "type": "object",
            "propertyNames": KEY,
            "additionalProperties": {
                "type": "object",
                "properties": {"codes": FINAL_CODES},
                "required": ["codes"],
            },
        },
        "methods": {
            "type": "object",
            "propertyNames": {"anyOf": [KEY, {"const": "excluded"}]},
            "additionalProperties": METHOD,
        },
        "method": {"enum": ["", None, "unanimous", "negotiated", "adjudicated", "single_coded"]},
        "disagreements": {
            "type": "array",
            "items": {"anyOf": [KEY, {"const": "excluded"}]},
            "maxItems": 100,
            "uniqueItems": True,
        },
        "disagreement_reason": _enum("", "ambiguous_text", "guideline_gap", "taxonomy_gap", "rater_error", "other"),
        "excluded": {"type": "boolean"},
        "excluded_reason": _enum("", "not_a_bug", "out_of_scope"),
        "note": _text_schema(),
    },
    ("issue_url", "labels"),
)

VALIDATORS = {
    name: Draft202012Validator({**schema, "$defs": DEFS}, format_checker=checker)
    for name, schema in {
        "study.json": STUDY,
        "data/issues.jsonl": ISSUE,
        "data/sample.jsonl": SAMPLE,
        "data/labels.jsonl": LABELS,
        "data/final_labels.jsonl": FINAL_LABELS,
    }.items()
}
MESSAGE_MAX = 200


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(data: bytes | str) -> Any:
    """JSON as the package's writer produces it: no NaN or Infinity, no absurd nesting."""
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None


def _field(path) -> str:
    text = "$"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _message(error) -> str:
    if error.validator == "format" and error.cause is not None:
        return str(error.cause)
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown field")
    message = error.message
    return message if len(message) <= MESSAGE_MAX else message[: MESSAGE_MAX - 3] + "..."


def record_problems(name: str, record: Any) -> Iterator[str]:
    """Every schema problem of one record of the file ``name``, as "<field>: <what>"."""
    try:
        errors = sorted(VALIDATORS[name].iter_errors(record), key=lambda e: list(map(str, e.absolute_path)))
    except RecursionError:
        yield "$: nested too deeply"
        return
    for error in errors:
        yield f"{_field(error.absolute_path)}: {_message(error)}"
