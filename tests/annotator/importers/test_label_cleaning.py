"""Label normalisation, merge suggestions and mapping files (pure; no database)."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.importers.label_cleaning import (
    LabelMappingError,
    MergeSuggestion,
    allowed_distance,
    display_form,
    lookup_mapping,
    mapping_from_suggestions,
    normalise_label,
    read_label_mapping,
    suggest_merges,
    write_label_mapping,
)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Hang & Timeout", "hang and timeout"),
        ("hang and timeout", "hang and timeout"),
        ("  Communication   setup ", "communication setup"),
        ("installation/build failure", "installation/build failure"),
        ("scope / context issue", "scope/context issue"),
        ("fix device  assignment", "fix device assignment"),
        ("Ｆｉｘ ｂａｔｃｈ", "fix batch"),  # full-width letters fold with NFKC
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),  # casefold, not lower
    ],
)
def test_normalise_label_compares_hand_typed_variants(written, expected):
    assert normalise_label(written) == expected


@pytest.mark.parametrize("blank", [None, "", "   ", "\t\n", "PENDING", "pending", " Pending "])
def test_blank_and_missing_marker_mean_not_labelled(blank):
    assert normalise_label(blank) is None


def test_missing_markers_are_configurable():
    assert normalise_label("TBD", missing={"tbd", "PENDING"}) is None
    assert normalise_label("PENDING", missing=()) == "pending"
    assert normalise_label("TBD") == "tbd"


@given(st.text())
def test_normalise_label_is_idempotent(text):
    once = normalise_label(text)
    if once is not None:
        assert normalise_label(once) == once


def test_display_form_is_the_most_frequent_spelling_stripped():
    assert display_form({"Hang & Timeout ": 3, "hang and timeout": 2}) == "Hang & Timeout"
    assert display_form({}) == ""


@pytest.mark.parametrize(("length", "allowed"), [(3, 0), (4, 1), (15, 1), (16, 2), (40, 2)])
def test_allowed_distance_grows_with_length(length, allowed):
    assert allowed_distance(length) == allowed


def test_suggest_merges_sends_the_rare_typo_to_the_frequent_spelling():
    counts = {
        "fix network setting": 21,
        "fix netowrk setting": 1,
        "fx communication configuration": 1,
        "fix communication configuration": 17,
    }
    assert suggest_merges(counts) == [
        MergeSuggestion("fix netowrk setting", "fix network setting", 1, 1, 21),
        MergeSuggestion("fx communication configuration", "fix communication configuration", 1, 1, 17),
    ]


def test_suggest_merges_leaves_short_distinct_words_alone():
    assert suggest_merges({"oom": 5, "cpu": 1, "gpu": 2}) == []


def test_suggest_merges_may_suggest_mid_length_one_edit_pairs():
    assert suggest_merges({"hang": 10, "bang": 1}) == [MergeSuggestion("bang", "hang", 1, 1, 10)]


def test_suggest_merges_does_not_merge_two_edits_in_a_mid_length_label():
    assert suggest_merges({"syntext error": 1, "context error": 1}) == []


def test_suggest_merges_flags_misspelt_missing_markers_as_not_labelled():
    assert suggest_merges({"pening": 1, "pedning": 1, "hang": 3}) == [
        MergeSuggestion("pedning", None, 1, 1, 0),
        MergeSuggestion("pening", None, 1, 1, 0),
    ]


def test_suggest_merges_breaks_ties_towards_preferred_labels():
    counts = {"invalid argument": 1, "invalid ragument": 1}
    assert suggest_merges(counts, preferred=["Invalid Ragument"])[0].to_label == "invalid ragument"
    assert suggest_merges(counts)[0].to_label == "invalid argument"


def test_suggest_merges_respects_max_distance():
    assert suggest_merges({"checkpoint nonfunctioning": 4, "checkpoint unfunctioning": 8}, max_distance=1) == []
    assert len(suggest_merges({"checkpoint nonfunctioning": 4, "checkpoint unfunctioning": 8})) == 1


def test_mapping_file_round_trip(tmp_path):
    mapping = {
        ("fix", "fix netowrk setting"): "fix network setting",
        (None, "program failures"): "program failure",
        ("leaf", "pening"): None,
    }
    path = tmp_path / "mapping.csv"
    write_label_mapping(path, mapping)
    assert path.read_text(encoding="utf-8").splitlines() == [
        "dimension,from,to",
        ",program failures,program failure",
        "fix,fix netowrk setting,fix network setting",
        "leaf,pening,",
    ]
    assert read_label_mapping(path) == mapping


def test_read_mapping_normalises_any_spelling(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("Dimension,From,To\nstage,Communication Setup ,Communication setup\n,Hang & Timeout,PENDING\n")
    assert read_label_mapping(path) == {
        ("stage", "communication setup"): "communication setup",
        (None, "hang and timeout"): None,
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("dim,src,dst\n", "line 1: the header must be 'dimension,from,to'"),
        ("dimension,from,to\nfix,,x\n", "line 2: 'from' is empty"),
        ("dimension,from,to\nfix,a b,x\n\nfix,A  B,y\n", "line 4: 'a b' is already mapped to 'x' for fix"),
    ],
)
def test_read_mapping_rejects_bad_files_naming_the_line(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(LabelMappingError, match=re.escape(message)):
        read_label_mapping(path)


def test_lookup_mapping_prefers_the_dimension_entry():
    mapping = {(None, "a"): "b", ("fix", "a"): "c"}
    assert lookup_mapping(mapping, "fix", "a") == "c"
    assert lookup_mapping(mapping, "stage", "a") == "b"
    assert lookup_mapping(mapping, "stage", "z") == "z"
    assert lookup_mapping(mapping, "stage", None) is None


def test_mapping_from_suggestions():
    suggestions = [MergeSuggestion("a b c d", "a b c e", 1, 1, 2)]
    assert mapping_from_suggestions(suggestions, "fix") == {("fix", "a b c d"): "a b c e"}
