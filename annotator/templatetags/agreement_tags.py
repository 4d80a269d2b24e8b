"""Formatting agreement figures: two decimals, percentages, and a dash for an undefined value."""

from django import template

register = template.Library()
DASH = "—"


@register.filter
def fig(value, places: int = 2) -> str:
    """0.39999 -> "0.40"; None or NaN (undefined) -> "—"."""
    if value is None or value != value:
        return DASH
    return f"{float(value):.{int(places)}f}"


@register.filter
def pct(value) -> str:
    """0.7 -> "70.0%"; None or NaN (undefined) -> "—"."""
    if value is None or value != value:
        return DASH
    return f"{float(value) * 100:.1f}%"


@register.filter
def get(mapping, key):
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def left_out(row, reasons) -> str:
    """How many issues a figure left out, and why: "2 a new category proposed instead of a choice; 1 ..."."""
    # Imported here: Django loads every tag library with the first template of any page, and the report's
    # module brings numpy, scipy and statsmodels, which only the agreement pages need.
    from annotator.services.agreement.report import left_out_text

    return left_out_text(row, reasons or {})
