"""`{% load history_tags %}`: a history entry's recorded values as a person reads them, not as Python prints them.

The history keeps snapshots as JSON (category ids by dimension key, flags, texts); the page shows
``Root cause: Version mismatch; Symptom: Crash`` for a labels dictionary, "yes"/"no" for flags and
"—" for nothing.
"""

from django import template

register = template.Library()

FIELD_NAMES = {
    "values": "Labels",
    "excluded": "Excluded",
    "excluded_reason": "Why excluded",
    "excluded_text": "Exclusion note",
    "confidence": "Confidence",
    "proposals": "Proposed categories",
    "time_spent_seconds": "Time spent (s)",
    "submitted_at": "Submitted",
    "frozen": "Frozen for adjudication",
    "method": "How it was reached",
    "disagreement_reason": "Why the raters differed",
    "note": "Note",
    "reason": "Reason",
    "status": "Status",
}


def _key_name(key: object) -> str:
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


@register.filter
def field_name(key: object) -> str:
    """A snapshot's field as a heading: ``excluded_reason`` -> "Why excluded"."""
    return FIELD_NAMES.get(str(key), _key_name(key))


@register.filter
def readable(value: object) -> str:
    """A recorded value as text: dictionaries as "Key: a, b; Other: c", lists joined, flags yes/no."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(f"{_key_name(key)}: {readable(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(readable(item) for item in value)
    return str(value)
