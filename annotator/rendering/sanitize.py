"""The one gate between rendered issue text and a page: an allow-list HTML sanitiser (nh3).

Everything not listed is removed: scripts, event handlers, style attributes, iframes,
objects, forms and inputs, and any URL that is not http(s) (mailto for links).

Images come from other sites, and loading one tells that site when a rater opens the issue. So
every image leaves here as a placeholder: a link to the image, with its address kept in
`data-src`, that the page turns back into an image only when the rater asks (or the site allows
external images; see static/js/external-images.js).

A code block keeps its long lines and scrolls sideways, so it leaves here focusable and named: a keyboard
user can reach it and scroll it with the arrow keys (the page may offer to wrap the lines instead). A wide
table scrolls the same way, inside a focusable box.
"""

import re
from html import escape, unescape
from urllib.parse import urlsplit

import nh3

from .highlight import pygments_classes

TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p",
        "pre", "q", "s", "samp", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody",
        "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var",
    }
)  # fmt: skip
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
    "details": {"open"},
    "abbr": {"title"},
}
# Only the classes our own renderer adds survive; an issue cannot dress itself up as the app.
CLASSES = {
    "span": {"tpl-placeholder", "task", "task-done", "fold-size", "fold-tail", *pygments_classes()},
    "pre": {"highlight"},
    "details": {"fold"},
    "li": {"task-item"},
    "div": {"env-block"},
}
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow noopener noreferrer"


def _is_web_url(value: str) -> bool:
    return value.strip().lower().startswith(("http://", "https://"))


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    # nh3 has already dropped disallowed schemes; what is left to refuse is images from
    # anything but http(s) (relative and protocol-relative paths included) and links that
    # would point into this application.
    if tag == "img" and attribute == "src":
        return value if _is_web_url(value) else None
    if tag == "a" and attribute == "href":
        stripped = value.strip()
        if stripped.startswith("#") or stripped.lower().startswith("mailto:") or _is_web_url(stripped):
            return value
        return None
    return value


# nh3 serialises every attribute double-quoted, with any '"' inside escaped: a value never holds '"'.
_ATTRS = r'((?:\s+[a-z-]+="[^"]*")*)\s*'
_TAG_RE = re.compile(rf"<img{_ATTRS}/?>|(?P<open><a{_ATTRS}>)|(?P<close></a>)")
_ATTR_RE = re.compile(r'([a-z-]+)="([^"]*)"')
EXTERNAL_IMAGE_CLASS = "external-image"


def _image_placeholder(attributes: str, *, in_link: bool) -> str:
    attrs = {name: unescape(value) for name, value in _ATTR_RE.findall(attributes)}
    src = attrs.get("src", "")
    if not src:
        return ""
    label = escape(attrs.get("alt") or attrs.get("title") or urlsplit(src).hostname or "image", quote=False)
    if in_link:  # a link cannot hold another: the surrounding link stays, the image waits inside it
        return f'<span class="{EXTERNAL_IMAGE_CLASS}" data-src="{escape(src)}">[image: {label}]</span>'
    return (
        f'<a class="{EXTERNAL_IMAGE_CLASS}" href="{escape(src)}" data-src="{escape(src)}" rel="{LINK_REL}">'
        f"[image: {label}]</a>"
    )


def _placeholders(html: str) -> str:
    depth = 0

    def replace(match: re.Match) -> str:
        nonlocal depth
        if match.group("open"):
            depth += 1
            return match.group(0)
        if match.group("close"):
            depth = max(0, depth - 1)
            return match.group(0)
        return _image_placeholder(match.group(1), in_link=depth > 0)

    return _TAG_RE.sub(replace, html)


# Added after cleaning, so no issue can set its own tabindex or role; nh3 escapes any "<pre" or "<table" in
# text and closes every table it keeps. A table scrolls inside a focusable box (the table keeps its own role).
_PRE_OPEN_RE = re.compile(r"<pre(?=[\s>])")
_TABLE_RE = re.compile(r"<table(?=[\s>])|</table>")
CODE_BLOCK_ATTRIBUTES = 'tabindex="0" role="region" aria-label="Code block"'
TABLE_BOX = '<div class="table-scroll" tabindex="0" role="region" aria-label="Table">'


def _focusable_code_blocks(html: str) -> str:
    html = _PRE_OPEN_RE.sub(f"<pre {CODE_BLOCK_ATTRIBUTES}", html)
    return _TABLE_RE.sub(lambda match: "</table></div>" if match.group(0) == "</table>" else TABLE_BOX + "<table", html)


def sanitize_html(html: str) -> str:
    """Sanitised HTML, safe to mark safe in a template; images become placeholders and code blocks
    keyboard-reachable (see above)."""
    return _focusable_code_blocks(_placeholders(_clean(html)))


def _clean(html: str) -> str:
    return nh3.clean(
        html,
        tags=set(TAGS),
        clean_content_tags={"script", "style", "iframe", "object", "embed", "template", "noscript", "textarea"},
        attributes={tag: set(attrs) for tag, attrs in ATTRIBUTES.items()},
        allowed_classes={tag: set(classes) for tag, classes in CLASSES.items()},
        attribute_filter=_attribute_filter,
        url_schemes=set(LINK_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )
