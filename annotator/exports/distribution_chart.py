"""Box-and-strip plots of fix measures per group (category or framework), laid out for the SVG and PNG renderers.

One horizontal row per group: the box from the first to the third quartile, a thick line at the median,
whiskers to the furthest values within 1.5 IQR of the box (Tukey), and the values themselves as dots
spread over the row's height. Fix sizes and times are heavy-tailed, so the axis is logarithmic in 1 + value
(0 stays on the axis) with ticks at 0, 1, 10, 100, ...; a linear axis is available.

A row draws at most ``max_dots`` dots: beyond that, dots at evenly spaced ranks of the sorted values, and the
subtitle says so. The dots' vertical spread comes from the value's rank, so the same data draws the same
picture. Pure Python, no Django.
"""

import math
from collections.abc import Sequence

from annotator.findings.summaries import known, quantile

from .charts import (
    FONT_SIZE,
    GAP,
    LINE_HEIGHT,
    MARGIN,
    PALETTE,
    Box,
    Chart,
    Dot,
    Line,
    Text,
    chart_header,
    clean_text,
    format_value,
    label_column,
    row_label,
    wrap_label,
)

MAX_DOTS = 200
BOX_COLOUR = "#DDE6F0"
AXIS_COLOUR = "#666666"
_AXIS_HEIGHT = 34


def _scale(maximum: float, log: bool):
    if log:
        top = math.log10(1 + maximum) or 1.0
        return lambda v: math.log10(1 + max(v, 0)) / top
    top = maximum or 1.0
    return lambda v: max(v, 0) / top


def _ticks(maximum: float, log: bool) -> list[float]:
    if log:
        ticks, power = [0.0, 1.0], 10.0
        while power <= maximum * 1.0000001:
            ticks.append(power)
            power *= 10
        return ticks if maximum >= 1 else [0.0, 1.0]
    if maximum <= 0:
        return [0.0]
    step = 10 ** math.floor(math.log10(maximum))
    if maximum / step < 2:
        step /= 5
    elif maximum / step < 5:
        step /= 2
    return [i * step for i in range(int(maximum / step) + 1)]


def _shown(ordered: list[float], limit: int) -> list[float]:
    if len(ordered) <= limit:
        return ordered
    return [ordered[round(i * (len(ordered) - 1) / (limit - 1))] for i in range(limit)]


def box_strip_chart(
    groups: Sequence[tuple[object, Sequence[float | None]]],
    *,
    title: str,
    subtitle: str = "",
    axis_label: str = "",
    width: int = 640,
    row_height: int = 26,
    max_dots: int = MAX_DOTS,
    log_scale: bool = True,
) -> Chart:
    """One box-and-strip row per (label, values), in the order given; a row without values says "no data"."""
    if max_dots < 2:
        raise ValueError("A strip needs room for at least two dots; give max_dots of 2 or more.")
    rows = [(label, sorted(known(values))) for label, values in groups]
    thinned = [label for label, values in rows if len(values) > max_dots]
    notes = [subtitle] if subtitle else []
    if thinned:
        notes.append(f"Rows with more than {max_dots} values show {max_dots} dots at evenly spaced ranks.")
    label_width, max_chars = label_column([label for label, _ in rows], width)
    count_width = max((len(f"n = {len(v)}") for _, v in rows), default=0) * 6.2 + MARGIN
    plot_left = label_width
    plot_width = max(width - label_width - count_width - MARGIN, 10)
    items, top = chart_header(width, title, " ".join(notes))
    maximum = max((values[-1] for _, values in rows if values), default=0.0)
    position = _scale(maximum, log_scale)
    y = top
    row_tops = []
    for label, _values in rows:
        lines = wrap_label(label, max_chars)
        row_tops.append((lines, y, max(row_height, len(lines) * LINE_HEIGHT)))
        y += row_tops[-1][2] + GAP
    plot_bottom = y
    for index, ((label, values), (lines, row_top, height)) in enumerate(zip(rows, row_tops, strict=True)):
        middle = row_top + height / 2
        colour = PALETTE[index % len(PALETTE)]
        items.append(row_label(label, lines, middle, label_width))
        if not values:
            items.append(Text(plot_left + 4, middle, ("no data",)))
            continue

        def x(v: float) -> float:
            return plot_left + position(v) * plot_width

        q1, median, q3 = quantile(values, 0.25), quantile(values, 0.5), quantile(values, 0.75)
        reach = 1.5 * (q3 - q1)
        low = min(v for v in values if v >= q1 - reach)
        high = max(v for v in values if v <= q3 + reach)
        box_top, box_height = middle - height * 0.35, height * 0.7
        summary = (
            f"{clean_text(label)}: n = {len(values)}, median {format_value(median)}, "
            f"IQR {format_value(q1)} to {format_value(q3)}"
        )
        items.append(Line(x(low), middle, x(q1), middle, AXIS_COLOUR))
        items.append(Line(x(q3), middle, x(high), middle, AXIS_COLOUR))
        for end in (low, high):
            items.append(Line(x(end), middle - height * 0.2, x(end), middle + height * 0.2, AXIS_COLOUR))
        items.append(Box(x(q1), box_top, max(x(q3) - x(q1), 1.0), box_height, BOX_COLOUR, summary))
        shown = _shown(values, max_dots)
        for rank, value in enumerate(shown):
            # Spread by rank (a fixed low-discrepancy sequence), so equal values do not sit on one point.
            offset = ((rank * 0.618034) % 1.0 - 0.5) * box_height * 0.9
            items.append(Dot(x(value), middle + offset, 1.8, colour))
        items.append(Line(x(median), box_top, x(median), box_top + box_height, "#000000", 2.0))
        items.append(Text(plot_left + plot_width + 6, middle, (f"n = {len(values)}",)))
    # The axis: a line, ticks with their values, and the axis label.
    axis_y = plot_bottom + 2
    items.append(Line(plot_left, axis_y, plot_left + plot_width, axis_y, AXIS_COLOUR))
    for tick in _ticks(maximum, log_scale):
        tick_x = plot_left + position(tick) * plot_width
        items.append(Line(tick_x, axis_y, tick_x, axis_y + 4, AXIS_COLOUR))
        items.append(Text(tick_x, axis_y + 11, (format_value(tick),), anchor="middle", size=FONT_SIZE - 1))
    if axis_label:
        scale_note = " (log scale of 1 + value)" if log_scale else ""
        items.append(Text(plot_left, axis_y + 25, (clean_text(axis_label) + scale_note,), size=FONT_SIZE - 1))
    return Chart(width, axis_y + _AXIS_HEIGHT + MARGIN, clean_text(title), items)
