"""Showing fix effort: durations in hours read as hours or days."""

from django import template

register = template.Library()


@register.filter
def duration(hours: float | None) -> str:
    """3.5 -> "3.5 hours", 50 -> "2.1 days"; None -> "—"."""
    if hours is None:
        return "—"
    if hours < 48:
        return f"{hours:.1f} hours"
    return f"{hours / 24:.1f} days"
