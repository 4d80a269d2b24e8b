"""What raters see of an issue body: highlighted code, folded logs, dimmed template text."""

import re

from annotator.rendering import render_markdown
from annotator.rendering.highlight import COLLAPSE_LINES
from annotator.rendering.placeholders import split_placeholders
from annotator.rendering.sanitize import CODE_BLOCK_ATTRIBUTES

DEEPSPEED_UNTOUCHED = """**Describe the bug**
A clear and concise description of what the bug is.

**To Reproduce**
Steps to reproduce the behavior:
1. Go to '...'
2. See error

**Expected behavior**
A clear and concise description of what you expected to happen.

**ds_report output**
Please run `ds_report` to give us details about your setup.

**System info (please complete the following information):**
 - OS: [e.g. Ubuntu 18.04]
 - GPU count and types [e.g. two machines with x8 A100s each]
"""


def dimmed(html: str) -> list[str]:
    return re.findall(r'<span class="tpl-placeholder">(.*?)</span>', html)


def test_fenced_python_is_highlighted_with_classes_not_inline_styles():
    html = render_markdown("```python\nimport deepspeed\nmodel = deepspeed.initialize()\n```")
    assert f'<pre {CODE_BLOCK_ATTRIBUTES} class="highlight">' in html
    assert '<span class="kn">import</span>' in html
    assert "style=" not in html


def test_untagged_traceback_is_highlighted_as_a_traceback():
    html = render_markdown('```\nTraceback (most recent call last):\n  File "train.py", line 3\nValueError: x\n```')
    assert f'<pre {CODE_BLOCK_ATTRIBUTES} class="highlight">' in html
    assert 'class="ne"' in html or 'class="gr"' in html  # the exception name is coloured


def test_unknown_language_falls_back_to_plain_escaped_text():
    html = render_markdown("```not-a-language\na < b\n```")
    assert f"<pre {CODE_BLOCK_ATTRIBUTES}><code>a &lt; b" in html


def test_a_long_log_is_folded_with_its_size_and_last_line_in_the_summary():
    log = (
        "\n".join(f"[rank0] step {i} loss 2.{i:03d}" for i in range(200)) + "\nRuntimeError: NCCL error in: all_reduce"
    )
    html = render_markdown(f"```\n{log}\n```")
    assert html.startswith('<details class="fold"><summary>')
    assert "201 lines" in html
    assert re.search(r'<span class="fold-tail">RuntimeError: NCCL error in: all_reduce</span>', html)
    assert "step 199 loss" in html  # folded, not cut


def test_a_short_block_is_not_folded():
    html = render_markdown("```\n" + "\n".join(["line"] * COLLAPSE_LINES) + "\n```")
    assert "<details" not in html


def test_long_indented_code_is_folded_too():
    html = render_markdown("Output:\n\n" + "\n".join(f"    line {i}" for i in range(COLLAPSE_LINES + 5)))
    assert '<details class="fold">' in html


def test_untouched_template_sentences_are_dimmed():
    marked = dimmed(render_markdown(DEEPSPEED_UNTOUCHED))
    assert "A clear and concise description of what the bug is." in marked
    assert "A clear and concise description of what you expected to happen." in marked
    assert "Steps to reproduce the behavior:" in marked
    assert "[e.g. Ubuntu 18.04]" in marked
    assert "Go to &#x27;...&#x27;" in marked or "Go to '...'" in marked


def test_what_the_reporter_wrote_is_not_dimmed():
    html = render_markdown("**Describe the bug**\nZeRO-3 hangs at step 1 when offloading to NVMe.")
    assert dimmed(html) == []
    assert "ZeRO-3 hangs at step 1" in html


def test_a_placeholder_inside_a_sentence_is_dimmed_alone():
    pieces = split_placeholders(
        "Megatron-LM asks: Ask a clear and concise question about Megatron-LM. Why does TP=2 hang?"
    )
    assert pieces == [
        ("Megatron-LM asks: ", False),
        ("Ask a clear and concise question about Megatron-LM.", True),
        (" Why does TP=2 hang?", False),
    ]


def test_issue_form_no_response_is_dimmed():
    html = render_markdown("### Environment\n\n_No response_")
    assert dimmed(html) == ["No response"]


def test_colossalai_form_headings_and_checkboxes():
    html = render_markdown(
        "### Is there an existing issue for this bug?\n\n- [X] I have searched the existing issues\n"
        "- [ ] Something unchecked\n\n### 🐛 Describe the bug\n\nOOM with Gemini."
    )
    assert "<h4>🐛 Describe the bug</h4>" in html  # one level below the page title
    assert '<li class="task-item"><span class="task task-done">☑</span>' in html
    assert '<span class="task">☐</span> Something unchecked' in html
    assert "<input" not in html


def test_bare_urls_become_links_without_swallowing_punctuation():
    html = render_markdown("Fixed in https://github.com/deepspeedai/DeepSpeed/pull/4321.")
    assert '<a href="https://github.com/deepspeedai/DeepSpeed/pull/4321" rel=' in html
    assert "</a>.</p>" in html


def test_tables_and_strikethrough_render():
    html = render_markdown("| zero | ok |\n|---|---|\n| 3 | ~~no~~ |")
    assert "<table>" in html and "<td>3</td>" in html and "<s>no</s>" in html


def test_html_details_written_by_the_reporter_are_kept():
    html = render_markdown("<details><summary>full log</summary>\n\nlots of text\n\n</details>")
    assert "<details><summary>full log</summary>" in html


def test_empty_text_renders_to_nothing():
    assert render_markdown("") == ""


def test_a_huge_body_is_rendered_without_error():
    html = render_markdown("```\n" + "x = 1\n" * 200_000 + "```")
    assert html.startswith('<details class="fold">')
