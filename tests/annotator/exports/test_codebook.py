"""The Markdown codebook and the flat CSV of a taxonomy tree."""

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from annotator.exports.codebook import (
    TAXONOMY_CSV_HEADER,
    code_span,
    markdown_codebook,
    md_escape,
    taxonomy_csv_rows,
)
from annotator.exports.safe_csv import csv_rows

TEMPLATES = Path(__file__).resolve().parents[3] / "taxonomy" / "data"


def leaf(code, name, **fields):
    return {"code": code, "name": name, **fields}


TAXONOMY = {
    "name": "Bugs in *distributed* DL",
    "slug": "ddl-test",
    "version": 3,
    "description": "First paragraph with init_process_group.\n\n# Not a heading\nstill the same paragraph",
    "citation": "Ma et al. [2025] <arXiv:2512.20345>",
    "license": "CC-BY-4.0",
    "dimensions": [
        {
            "key": "symptom",
            "name": "Symptom",
            "help_text": "What the user sees.",
            "multi_valued": True,
            "categories": [
                {
                    "code": "error",
                    "name": "Error",
                    "definition": "The program stops with an error.",
                    "provenance": "abstract",
                    "children": [
                        {
                            "code": "error.communication",
                            "name": "Communication error",
                            "definition": "NCCL or Gloo fails.",
                            "distributed_specific": True,
                            "examples": ["https://github.com/microsoft/DeepSpeed/issues/1_2", "NCCL error *unhandled*"],
                            "aliases": ["comm error", "NCCL_ERROR"],
                            "provenance": "secondary",
                            "children": [
                                leaf(
                                    "error.communication.timeout",
                                    "Timeout <script>alert(1)</script>",
                                    definition="A collective never returns.",
                                    deprecated=True,
                                    distributed_specific=False,
                                    children=[
                                        leaf(
                                            "error.communication.timeout.barrier",
                                            "Barrier",
                                            definition="Stuck in barrier.",
                                            children=[leaf("error.communication.timeout.barrier.x", "Deepest")],
                                        )
                                    ],
                                )
                            ],
                        }
                    ],
                },
                leaf("crash-`oops`", "1. Crash | hard", definition="- starts like a list"),
            ],
        },
        {"key": "fix", "name": "Fix pattern", "categories": []},
    ],
}


def rendered_text(markdown: str) -> str:
    """The text a reader sees: inline text and code of the rendered tokens, in order."""
    parts = []
    for token in MarkdownIt("commonmark").parse(markdown):
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
    return " ".join(parts)


def headings(markdown: str) -> list[tuple[str, str]]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [(tokens[i].tag, tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]


@pytest.fixture(scope="module")
def codebook() -> str:
    return markdown_codebook(TAXONOMY)


def test_title_and_metadata(codebook):
    assert codebook.startswith("# Bugs in \\*distributed\\* DL — codebook\n")
    assert "- **Identifier:** `ddl-test`" in codebook
    assert "- **Version:** 3" in codebook
    assert "- **Licence:** CC-BY-4.0" in codebook
    assert "Ma et al. \\[2025\\] \\<arXiv:2512.20345\\>" in codebook


def test_a_heading_per_dimension_and_nested_headings_per_category_level(codebook):
    assert [h for h in headings(codebook) if h[0] != "h1"] == [
        ("h2", "Contents"),
        ("h2", "Symptom (`symptom`)"),
        ("h3", "Error (`error`)"),
        ("h4", "Communication error (`error.communication`) — *distributed-specific*"),
        ("h5", "Timeout \\<script\\>alert(1)\\</script\\> (`error.communication.timeout`) — *deprecated*"),
        ("h6", "Barrier (`error.communication.timeout.barrier`)"),
        ("h3", "1\\. Crash \\| hard (`` crash-`oops` ``)"),
        ("h2", "Fix pattern (`fix`)"),
    ]


def test_a_category_deeper_than_h6_becomes_a_bold_paragraph(codebook):
    assert "**Deepest (`error.communication.timeout.barrier.x`)**" in codebook


def test_every_field_of_a_category_is_rendered(codebook):
    section = codebook.split("#### Communication error")[1].split("#####")[0]
    assert "- **Path:** Error \\> Communication error" in section
    assert "- **Definition:** NCCL or Gloo fails." in section
    assert "  - <https://github.com/microsoft/DeepSpeed/issues/1_2>" in section  # an intact link
    assert "  - NCCL error \\*unhandled\\*" in section
    assert "- **Also written as:** comm error; NCCL\\_ERROR" in section
    assert "- **Distributed-specific:** yes" in section
    assert "- **Provenance:** secondary" in section


def test_contents_count_the_whole_tree_and_multi_valued_is_said(codebook):
    assert "- Symptom: 6 categories" in codebook
    assert "- Fix pattern: 0 categories" in codebook
    assert "*Several categories may apply to one issue.*" in codebook
    assert "*One category per issue.*" in codebook
    assert "*No categories yet.*" in codebook


def test_no_raw_html_reaches_the_reader(codebook):
    html = MarkdownIt("commonmark").render(codebook)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_text_renders_as_written(codebook):
    seen = rendered_text(codebook)
    for text in [
        "Bugs in *distributed* DL",
        "Timeout <script>alert(1)</script>",
        "1. Crash | hard",
        "- starts like a list",
        "init_process_group",
        "# Not a heading still the same paragraph",
        "NCCL error *unhandled*",
        "crash-`oops`",
    ]:
        assert text in seen, text


def test_the_link_target_is_kept_exactly(codebook):
    html = MarkdownIt("commonmark").render(codebook)
    assert 'href="https://github.com/microsoft/DeepSpeed/issues/1_2"' in html


@pytest.mark.parametrize(
    "text", ["# h", "> q", "- l", "+ l", "= u", "1. n", "3) n", "*a* _b_ `c` [d](e) <f> & g | h ~~i~~ \\ j", "![x](y)"]
)
def test_md_escape_prints_as_written(text):
    assert rendered_text(md_escape(text)) == text


@pytest.mark.parametrize("text", ["plain", "a`b", "``", "`x`"])
def test_code_span_keeps_backticks(text):
    assert rendered_text(code_span(text)) == text


def test_a_shipped_template_renders(tmp_path):
    taxonomy = json.loads((TEMPLATES / "gu-tosem23.json").read_text(encoding="utf-8"))
    codebook = markdown_codebook(taxonomy)
    assert codebook.count("\n## ") == len(taxonomy["dimensions"]) + 1  # + Contents
    first = taxonomy["dimensions"][0]["categories"][0]
    assert f"### {first['name']} (`{first['code']}`)" in codebook


def test_csv_rows_flatten_the_tree_depth_first_with_paths():
    rows = list(taxonomy_csv_rows(TAXONOMY))
    assert len(rows[0]) == len(TAXONOMY_CSV_HEADER)
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("symptom", "Error", "error"),
        ("symptom", "Error > Communication error", "error.communication"),
        (
            "symptom",
            "Error > Communication error > Timeout <script>alert(1)</script>",
            "error.communication.timeout",
        ),
        (
            "symptom",
            "Error > Communication error > Timeout <script>alert(1)</script> > Barrier",
            "error.communication.timeout.barrier",
        ),
        (
            "symptom",
            "Error > Communication error > Timeout <script>alert(1)</script> > Barrier > Deepest",
            "error.communication.timeout.barrier.x",
        ),
        ("symptom", "1. Crash | hard", "crash-`oops`"),
    ]


def test_csv_rows_carry_every_field():
    row = dict(zip(TAXONOMY_CSV_HEADER, list(taxonomy_csv_rows(TAXONOMY))[1], strict=True))
    assert row == {
        "dimension": "symptom",
        "path": "Error > Communication error",
        "code": "error.communication",
        "name": "Communication error",
        "definition": "NCCL or Gloo fails.",
        "examples": "https://github.com/microsoft/DeepSpeed/issues/1_2; NCCL error *unhandled*",
        "aliases": "comm error; NCCL_ERROR",
        "distributed_specific": True,
        "provenance": "secondary",
        "deprecated": False,
    }


def test_csv_of_the_taxonomy_through_safe_csv():
    lines = list(csv_rows(TAXONOMY_CSV_HEADER, taxonomy_csv_rows(TAXONOMY)))
    assert lines[0].startswith("dimension,path,code,name,definition")
    assert lines[-1] == "symptom,1. Crash | hard,crash-`oops`,1. Crash | hard,'- starts like a list,,,,,false\r\n"
    assert ",true,secondary,false\r\n" in lines[2]


def test_missing_fields_are_treated_as_empty():
    minimal = {"dimensions": [{"key": "k", "categories": [{"code": "c"}]}]}
    assert "### c (`c`)" in markdown_codebook(minimal)
    assert list(taxonomy_csv_rows(minimal)) == [["k", "c", "c", "", "", "", "", None, "", False]]
