"""Filters of the labelling page."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

BACKTICKS = re.compile(r"`([^`]+)`")


@register.filter
def kbd(text: str) -> SafeString:
    """Text with keys in backticks (as in annotator.labelling_keys and the README) as HTML with <kbd> keys."""
    return mark_safe(BACKTICKS.sub(r"<kbd>\1</kbd>", escape(text)))  # noqa: S308 - escaped first
