"""Template filters for issue pages: `{% load issue_tags %}`."""

import hashlib

from django import template
from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe

from annotator import rendering
from annotator.selectors.issues import SNIPPET_CHARS, SNIPPET_LEAD

register = template.Library()

# Bump when the renderer's output changes, so cached HTML of the old shape is not served.
RENDER_VERSION = 3
CACHE_SECONDS = 60 * 60 * 24
# Short texts render faster than a cache round trip.
CACHE_MIN_CHARS = 2000


@register.filter
def render_markdown(text: str | None) -> SafeString:
    """Issue or comment Markdown as sanitised HTML (long texts cached by content)."""
    if not text:
        return mark_safe("")
    if len(text) < CACHE_MIN_CHARS:
        return mark_safe(rendering.render_markdown(text))  # noqa: S308 - sanitised by nh3
    key = f"md:{RENDER_VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"
    html = cache.get(key)
    if html is None:
        html = rendering.render_markdown(text)
        cache.set(key, html, CACHE_SECONDS)
    return mark_safe(html)  # noqa: S308 - sanitised by nh3 before caching


@register.simple_tag
def environment_of(text: str | None) -> list[rendering.Section]:
    """The environment sections of an issue body (ds_report output, System info, Environment)."""
    return rendering.environment_sections(text or "")


@register.filter
def state_class(state: str) -> str:
    return {"open": "state-open", "closed": "state-closed"}.get(state or "", "state-unknown")


@register.filter
def highlight(text: str | None, terms: list[str] | None) -> SafeString:
    """`{{ issue.title|highlight:terms }}`: the text escaped, each case-insensitive match of a term in <mark>."""
    return mark_safe(rendering.highlight_terms(text or "", terms or []))  # noqa: S308 - escaped in highlight_terms


@register.filter
def snippet(issue) -> SafeString | str:
    """The search snippet of a list row as text on one line, with "…" where the body goes on."""
    text = getattr(issue, "snippet", "") or ""
    if not text or not getattr(issue, "snippet_at", 0):
        return ""
    lead = "…" if issue.snippet_at > SNIPPET_LEAD + 1 else ""
    tail = "…" if len(text) >= SNIPPET_CHARS else ""
    return f"{lead}{' '.join(text.split())}{tail}"
