"""Bar charts as standalone SVG for the paper's distribution figures.

The SVG is self-contained: presentation attributes only (no ``style``, no script, no external font or
image), the generic ``sans-serif`` font, every text escaped and stripped of characters XML forbids, so it
opens in a browser, a vector editor or LaTeX (via svg/inkscape) and is safe to serve. Labels too long for
the label column are shortened with an ellipsis; the full text stays in a ``<title>`` tooltip.

Pure Python, no Django.
"""

import math
import re
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

FONT = "sans-serif"
FONT_SIZE = 11
CHAR_WIDTH = 6.2  # average advance of an 11px sans-serif character, enough to size the label column
BAR_COLOUR = "#4477AA"
# Okabe-Ito: distinguishable with the common forms of colour blindness and in greyscale print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MARGIN = 8
_TITLE_HEIGHT = 28
_GAP = 6


def _clean(value: object) -> str:
    """The text on one line, without the control characters XML 1.0 forbids."""
    return " ".join(_XML_FORBIDDEN.sub("", str(value)).split())


def _text(value: object) -> str:
    return escape(_clean(value))


def _fit(label: object, max_chars: int) -> str:
    label = _clean(label)
    return label if len(label) <= max_chars else label[: max(max_chars - 1, 1)] + "…"


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _format_value(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


def _check(labels: Sequence[object], values: Sequence[float], what: str) -> None:
    if len(labels) != len(values):
        raise ValueError(f"{len(labels)} labels but {len(values)} {what}; give one value per label.")
    for label, value in zip(labels, values, strict=True):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise ValueError(f"The value for {label!r} is {value!r}; a bar needs a finite number of 0 or more.")


def _label_column(labels: Sequence[object], width: int) -> tuple[float, int]:
    max_chars = max(4, int(width * 0.4 / CHAR_WIDTH))
    longest = max((len(_fit(label, max_chars)) for label in labels), default=0)
    return longest * CHAR_WIDTH + _MARGIN * 2, max_chars


def _open(width: int, height: float, title: str) -> list[str]:
    return [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{_number(height)}" '
        f'viewBox="0 0 {width} {_number(height)}" role="img" aria-labelledby="chart-title" '
        f'font-family="{FONT}" font-size="{FONT_SIZE}">',
        f'<title id="chart-title">{_text(title)}</title>',
        f'<rect width="{width}" height="{_number(height)}" fill="#ffffff"/>',
        f'<text x="{_MARGIN}" y="18" font-size="{FONT_SIZE + 2}" font-weight="bold">{_text(title)}</text>',
    ]


def _row_label(label: object, y: float, label_width: float, max_chars: int) -> str:
    shown = _fit(label, max_chars)
    tip = f"<title>{_text(label)}</title>" if shown != _clean(label) else ""
    return (
        f'<text x="{_number(label_width - _MARGIN)}" y="{_number(y)}" text-anchor="end" '
        f'dominant-baseline="middle">{tip}{_text(shown)}</text>'
    )


def bar_chart_svg(
    labels: Sequence[object],
    values: Sequence[float],
    *,
    title: str,
    width: int = 640,
    bar_height: int = 18,
    value_labels: Sequence[str] | None = None,
) -> str:
    """A horizontal bar chart, one bar per label in the order given, its value printed after the bar.

    ``value_labels`` replaces the printed numbers (e.g. ``"45 (12.3%)"``); bars are scaled to the largest value.
    """
    labels, values = list(labels), list(values)
    _check(labels, values, "values")
    if value_labels is not None and len(value_labels) != len(values):
        raise ValueError(f"{len(value_labels)} value labels for {len(values)} values; give one per bar.")
    printed = list(value_labels) if value_labels is not None else [_format_value(v) for v in values]
    label_width, max_chars = _label_column(labels, width)
    value_width = max((len(str(p)) for p in printed), default=0) * CHAR_WIDTH + _MARGIN
    plot_width = max(width - label_width - value_width - _MARGIN, 10)
    top = _TITLE_HEIGHT
    height = top + len(values) * (bar_height + _GAP) + _MARGIN
    scale = plot_width / max(values) if values and max(values) > 0 else 0

    parts = _open(width, height, title)
    for index, (label, value, text) in enumerate(zip(labels, values, printed, strict=True)):
        y = top + index * (bar_height + _GAP)
        middle = y + bar_height / 2
        length = value * scale
        parts.append(_row_label(label, middle, label_width, max_chars))
        parts.append(
            f'<rect x="{_number(label_width)}" y="{_number(y)}" width="{_number(length)}" '
            f'height="{bar_height}" fill="{BAR_COLOUR}"><title>{_text(label)}: {_text(text)}</title></rect>'
        )
        parts.append(
            f'<text x="{_number(label_width + length + 4)}" y="{_number(middle)}" '
            f'dominant-baseline="middle">{_text(text)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def stacked_bar_svg(
    categories: Sequence[object],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    width: int = 640,
    bar_height: int = 18,
) -> str:
    """Horizontal stacked bars: one bar per category, one coloured segment per series, with a legend.

    ``series`` maps a series name (e.g. a framework: DeepSpeed, Megatron-LM, Colossal-AI) to one value per
    category, in the order of ``categories``. Colours repeat after eight series.
    """
    categories = list(categories)
    for name, values in series.items():
        _check(categories, list(values), f"values in the series {name!r}")
    totals = [sum(values[i] for values in series.values()) for i in range(len(categories))]
    label_width, max_chars = _label_column(categories, width)
    value_width = max((len(_format_value(t)) for t in totals), default=0) * CHAR_WIDTH + _MARGIN
    plot_width = max(width - label_width - value_width - _MARGIN, 10)
    legend_rows = math.ceil(len(series) / 4)
    top = _TITLE_HEIGHT + legend_rows * (FONT_SIZE + _GAP) + _GAP
    height = top + len(categories) * (bar_height + _GAP) + _MARGIN
    scale = plot_width / max(totals) if totals and max(totals) > 0 else 0

    parts = _open(width, height, title)
    column_width = (width - 2 * _MARGIN) / 4
    for index, name in enumerate(series):
        x = _MARGIN + (index % 4) * column_width
        y = _TITLE_HEIGHT + (index // 4) * (FONT_SIZE + _GAP)
        parts.append(
            f'<rect x="{_number(x)}" y="{_number(y)}" width="{FONT_SIZE}" height="{FONT_SIZE}" '
            f'fill="{PALETTE[index % len(PALETTE)]}"/>'
        )
        legend = _fit(name, int((column_width - FONT_SIZE - 8) / CHAR_WIDTH))
        parts.append(
            f'<text x="{_number(x + FONT_SIZE + 4)}" y="{_number(y + FONT_SIZE / 2)}" '
            f'dominant-baseline="middle">{_text(legend)}</text>'
        )
    for row, category in enumerate(categories):
        y = top + row * (bar_height + _GAP)
        middle = y + bar_height / 2
        parts.append(_row_label(category, middle, label_width, max_chars))
        x = label_width
        for index, (name, values) in enumerate(series.items()):
            length = values[row] * scale
            if length > 0:
                parts.append(
                    f'<rect x="{_number(x)}" y="{_number(y)}" width="{_number(length)}" height="{bar_height}" '
                    f'fill="{PALETTE[index % len(PALETTE)]}"><title>{_text(category)}, {_text(name)}: '
                    f"{_text(_format_value(values[row]))}</title></rect>"
                )
            x += length
        parts.append(
            f'<text x="{_number(x + 4)}" y="{_number(middle)}" dominant-baseline="middle">'
            f"{_text(_format_value(totals[row]))}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
