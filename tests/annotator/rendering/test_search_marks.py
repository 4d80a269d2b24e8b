"""Search matches marked in escaped text."""

from hypothesis import given
from hypothesis import strategies as st

from annotator.rendering import highlight_terms


def test_every_case_insensitive_match_is_marked():
    assert highlight_terms("NCCL and nccl", ["nccl"]) == "<mark>NCCL</mark> and <mark>nccl</mark>"


def test_the_longest_term_wins_where_terms_overlap():
    assert highlight_terms("ZeRO-3 offload", ["zero", "zero-3"]) == "<mark>ZeRO-3</mark> offload"


def test_text_and_terms_are_escaped():
    assert highlight_terms("<b>a&b</b>", ["a&b"]) == "&lt;b&gt;<mark>a&amp;b</mark>&lt;/b&gt;"


def test_no_terms_is_plain_escaped_text():
    assert highlight_terms("<i>", []) == "&lt;i&gt;"


@given(st.text(max_size=80), st.lists(st.text(max_size=8), max_size=4))
def test_property_marks_only_add_tags(text, terms):
    html = highlight_terms(text, terms)
    assert "<" not in html.replace("<mark>", "").replace("</mark>", "")
    assert html.replace("<mark>", "").replace("</mark>", "") == highlight_terms(text, [])
