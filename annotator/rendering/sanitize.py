"""The one gate between rendered issue text and a page: an allow-list HTML sanitiser (nh3).

Everything not listed is removed: scripts, event handlers, style attributes, iframes,
objects, forms and inputs, and any URL that is not http(s) (mailto for links).
"""

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


def sanitize_html(html: str) -> str:
    """Sanitised HTML, safe to mark safe in a template."""
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
