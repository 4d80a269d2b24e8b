"""Rater pseudonyms: deterministic, and no name ever reaches the output."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.exports.pseudonyms import pseudonymise, redact


def test_pseudonyms_follow_the_order_of_first_appearance():
    assert pseudonymise(["bob", "alice", "bob", "carol", "alice"]) == {"bob": "R1", "alice": "R2", "carol": "R3"}


def test_a_key_makes_pseudonyms_independent_of_the_reading_order():
    joined = {"alice": 3, "bob": 1, "carol": 2}
    first = pseudonymise(["alice", "bob", "carol"], key=joined.__getitem__)
    second = pseudonymise(["carol", "alice", "bob", "bob"], key=joined.__getitem__)
    assert first == second == {"bob": "R1", "carol": "R2", "alice": "R3"}


def test_the_prefix_is_configurable():
    assert pseudonymise(["x", "y"], prefix="Rater ") == {"x": "Rater 1", "y": "Rater 2"}


@pytest.mark.parametrize("missing", [None, "", "  "])
def test_a_row_without_a_rater_is_refused(missing):
    with pytest.raises(ValueError, match="without a name"):
        pseudonymise(["alice", missing])


def test_no_raters_give_an_empty_mapping():
    assert pseudonymise([]) == {}


def test_the_input_is_read_once_so_a_generator_works():
    assert pseudonymise(name for name in ["a", "b", "a"]) == {"a": "R1", "b": "R2"}


@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzR0123456789", min_size=1, max_size=8), max_size=30))
def test_property_deterministic_distinct_and_built_from_a_counter_only(raters):
    mapping = pseudonymise(raters)
    assert mapping == pseudonymise(list(raters))
    assert set(mapping) == set(raters)
    assert sorted(mapping.values(), key=lambda p: int(p[1:])) == [f"R{n}" for n in range(1, len(mapping) + 1)]


def test_redact_replaces_mentions_in_free_text():
    mapping = {"ann": "R1", "anna.k": "R2", "Bob": "R3"}
    text = "Agree with @anna.k, not with Ann or bob; annex and bobby stay. ANN!"
    assert redact(text, mapping) == "Agree with R2, not with R1 or R3; annex and bobby stay. R1!"


def test_redact_leaves_text_without_names_alone():
    assert redact("nothing here", {"alice": "R1"}) == "nothing here"
    assert redact("", {"alice": "R1"}) == ""
    assert redact("alice", {}) == "alice"


def test_redact_treats_names_as_text_not_patterns():
    assert redact("a.c and abc", {"a.c": "R1"}) == "R1 and abc"
