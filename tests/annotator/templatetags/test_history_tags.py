"""The history page shows recorded values as a person reads them."""

import pytest

from annotator.templatetags.history_tags import field_name, readable

LABELS = {"root_cause": ["Version mismatch (RC-1)"], "symptom": ["Crash", "Hang"]}


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (LABELS, "Root cause: Version mismatch (RC-1); Symptom: Crash, Hang"),
        (True, "yes"),
        (False, "no"),
        (None, "—"),
        ({}, "—"),
        ([], "—"),
        ("", "—"),
        ("not a bug", "not a bug"),
        (3, "3"),
    ],
)
def test_values_read_as_text(value, shown):
    assert readable(value) == shown


def test_field_names_are_headings_not_keys():
    assert field_name("values") == "Labels"
    assert field_name("excluded_reason") == "Why excluded"
    assert field_name("some_new_field") == "Some new field"
