"""Issue Markdown (GitHub flavoured, as the three frameworks write it) to sanitised HTML."""

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from .highlight import render_code_block
from .placeholders import split_placeholders
from .sanitize import sanitize_html

# GitHub caps a body at 65,536 characters; files imported from elsewhere may not.
MAX_INPUT_CHARS = 1_000_000

_TASK_RE = re.compile(r"^\[([ xX])\]\s+")
# Bare URLs, as GitHub makes them clickable; trailing punctuation belongs to the sentence.
_URL_RE = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?'\""
_RAW_LINK_OPEN = re.compile(r"^<a[\s>]", re.IGNORECASE)
_RAW_LINK_CLOSE = re.compile(r"^</a\s*>", re.IGNORECASE)


def _trim_url(url: str) -> str:
    url = url.rstrip(_URL_TRAILING)
    # "(see https://x/y)" - the closing parenthesis is the sentence's unless the URL opened one.
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1].rstrip(_URL_TRAILING)
    return url


def _html_token(content: str) -> Token:
    token = Token("html_inline", "", 0)
    token.content = content
    return token


def _text_html(text: str, *, autolink: bool) -> str:
    """Escaped HTML for a run of text: placeholders dimmed, bare URLs linked."""
    out: list[str] = []
    for piece, is_placeholder in split_placeholders(text):
        html = _linkify(piece) if autolink else escape(piece, quote=False)
        out.append(f'<span class="tpl-placeholder">{html}</span>' if is_placeholder else html)
    return "".join(out)


def _linkify(text: str) -> str:
    out: list[str] = []
    pos = 0
    for match in _URL_RE.finditer(text):
        url = _trim_url(match.group(0))
        if len(url) <= len("https://"):
            continue
        out.append(escape(text[pos : match.start()], quote=False))
        out.append(f'<a href="{escape(url)}">{escape(url, quote=False)}</a>')
        pos = match.start() + len(url)
    out.append(escape(text[pos:], quote=False))
    return "".join(out)


def _mark_task(tokens: list[Token], index: int) -> None:
    """`- [x] item` -> a checked box glyph (not an <input>: forms never reach the page)."""
    inline = tokens[index]
    if index < 2 or tokens[index - 1].type != "paragraph_open" or tokens[index - 2].type != "list_item_open":
        return
    first = inline.children[0] if inline.children else None
    if first is None or first.type != "text" or not (match := _TASK_RE.match(first.content)):
        return
    done = match.group(1) in "xX"
    first.content = first.content[match.end() :]
    glyph = '<span class="task task-done">☑</span> ' if done else '<span class="task">☐</span> '
    inline.children.insert(0, _html_token(glyph))
    tokens[index - 2].attrSet("class", "task-item")


def _annotate_text(state: StateCore) -> None:
    """Core rule: task boxes, placeholder dimming and bare-URL links, on the parsed token stream."""
    for index, token in enumerate(state.tokens):
        if token.type != "inline" or not token.children:
            continue
        _mark_task(state.tokens, index)
        children: list[Token] = []
        link_depth = 0
        for child in token.children:
            if child.type == "link_open" or (child.type == "html_inline" and _RAW_LINK_OPEN.match(child.content)):
                link_depth += 1
            elif child.type == "link_close" or (child.type == "html_inline" and _RAW_LINK_CLOSE.match(child.content)):
                link_depth = max(0, link_depth - 1)
            if child.type == "text":
                children.append(_html_token(_text_html(child.content, autolink=link_depth == 0)))
            else:
                children.append(child)
        token.children = children


# The page's own title is the only <h1>: a body's headings sit one level below it (# -> h2, ## -> h3, ...).
HEADING_SHIFT = 1


def _nest_headings(state: StateCore) -> None:
    """Core rule: Markdown headings one level down, so an issue's "# Bug" never competes with the page title."""
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + HEADING_SHIFT, 6)}"


def _fence(self, tokens: list[Token], idx: int, options, env) -> str:
    token = tokens[idx]
    return render_code_block(token.content, token.info)


def _code_block(self, tokens: list[Token], idx: int, options, env) -> str:
    return render_code_block(tokens[idx].content, "")


def _build() -> MarkdownIt:
    # Raw HTML is let through the parser on purpose (issues use <details>, <img>, <br>);
    # the sanitiser decides what of it survives.
    md = MarkdownIt("commonmark", {"html": True, "breaks": True}).enable(["table", "strikethrough"])
    md.core.ruler.push("annotate_text", _annotate_text)
    md.core.ruler.push("nest_headings", _nest_headings)
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _code_block)
    return md


_MD = _build()


def render_markdown(text: str) -> str:
    """Sanitised HTML for issue or comment Markdown; safe to insert into a page as is."""
    if not text:
        return ""
    if len(text) > MAX_INPUT_CHARS:
        text = text[:MAX_INPUT_CHARS] + "\n\n*(text cut at 1,000,000 characters)*"
    return sanitize_html(_MD.render(text))
