"""Code blocks: Pygments highlighting (CSS classes only) and collapsing of long logs."""

from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.lexers.python import PythonTracebackLexer
from pygments.util import ClassNotFound

# Blocks longer than this are folded into <details>; a pasted log is rarely read top to bottom.
COLLAPSE_LINES = 25
# Highlighting a megabyte of log gains nothing and costs seconds: plain text beyond this.
HIGHLIGHT_MAX_CHARS = 100_000
SUMMARY_TAIL_CHARS = 140

_FORMATTER = HtmlFormatter(nowrap=True, classprefix="")
# Language names that mean "no highlighting": logs and console output are rendered as text.
_PLAIN = {"", "text", "txt", "plain", "plaintext", "log", "logs", "output", "console-output", "none"}


def _lexer_for(lang: str, code: str) -> Lexer | None:
    lang = lang.strip().lower()
    if lang in _PLAIN:
        # Untagged blocks are mostly tracebacks; those are worth colouring.
        return PythonTracebackLexer() if "Traceback (most recent call last)" in code[:2000] else None
    try:
        return get_lexer_by_name(lang)
    except ClassNotFound:
        return None


def _summary(code: str, line_count: int, lang: str) -> str:
    """The summary of a folded block: its size and its last line, where a log says what went wrong."""
    last = next((line.strip() for line in reversed(code.splitlines()) if line.strip()), "")
    if len(last) > SUMMARY_TAIL_CHARS:
        last = last[: SUMMARY_TAIL_CHARS - 1] + "…"
    what = escape(lang) if lang and lang.lower() not in _PLAIN else "Log"
    tail = f' <span class="fold-tail">{escape(last)}</span>' if last else ""
    return f'<span class="fold-size">{what} · {line_count} lines</span>{tail}'


def render_code_block(code: str, lang: str = "") -> str:
    """HTML for one fenced or indented block: highlighted <pre>, folded when long."""
    lang = (lang or "").split()[0] if (lang or "").strip() else ""
    lexer = _lexer_for(lang, code) if len(code) <= HIGHLIGHT_MAX_CHARS else None
    inner = highlight(code, lexer, _FORMATTER) if lexer is not None else escape(code)
    lang_class = ' class="highlight"' if lexer is not None else ""
    pre = f"<pre{lang_class}><code>{inner}</code></pre>"
    line_count = code.count("\n") + (0 if code.endswith("\n") else 1)
    if line_count <= COLLAPSE_LINES:
        return pre + "\n"
    return f'<details class="fold"><summary>{_summary(code, line_count, lang)}</summary>{pre}</details>\n'


def pygments_css() -> str:
    """The stylesheet for highlighted blocks (the static file is generated from this)."""
    return HtmlFormatter(classprefix="", style="default").get_style_defs(".md .highlight")


def pygments_classes() -> frozenset[str]:
    """Every class name Pygments may put on a <span>: the sanitiser keeps exactly these."""
    from pygments.token import STANDARD_TYPES

    return frozenset(name for name in STANDARD_TYPES.values() if name)
