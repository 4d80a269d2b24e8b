"""An issue's Markdown headings sit below the page's title: the page keeps a single <h1>."""

from annotator.rendering.markdown import render_markdown


def test_markdown_headings_move_one_level_down():
    html = render_markdown("# Bug report\n\n## Environment\n\n### Steps")
    assert "<h1>" not in html
    assert "<h2>Bug report</h2>" in html and "<h3>Environment</h3>" in html and "<h4>Steps</h4>" in html


def test_the_deepest_heading_stays_a_heading():
    assert "<h6>five</h6>" in render_markdown("##### five")
    assert "<h6>six</h6>" in render_markdown("###### six")
