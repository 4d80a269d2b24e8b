"""Bar charts for the paper's distribution figures, as standalone SVG and as PNG.

A chart is laid out once (boxes and text lines at fixed coordinates) and drawn by either renderer, so the
SVG and the PNG of a table show the same bars, labels and numbers. Long labels wrap onto up to three lines
instead of being cut; a label longer still ends in an ellipsis and keeps its full text in a tooltip.

The SVG is self-contained: presentation attributes only (no ``style``, no script, no external font or
image), the generic ``sans-serif`` font, every text escaped and stripped of characters XML forbids, so it
opens in a browser, a vector editor or LaTeX (via svg/inkscape) and is safe to serve. The PNG is drawn with
Pillow and its bundled scalable font, at twice the SVG's size by default (sharp in print and on screens).

Pure Python, no Django.
"""

import io
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

FONT = "sans-serif"
FONT_SIZE = 11
LINE_HEIGHT = 13
CHAR_WIDTH = 6.2  # average advance of an 11px sans-serif character, enough to size the label column
MAX_LABEL_LINES = 3
BAR_COLOUR = "#4477AA"
OTHERS_COLOUR = "#999999"
# Okabe-Ito: distinguishable with the common forms of colour blindness and in greyscale print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
MARGIN = 8
_TITLE_HEIGHT = 28
GAP = 6


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float
    fill: str
    tip: str = ""


@dataclass(frozen=True)
class Text:
    """Lines of text; ``y`` is the middle of the block, ``anchor`` "start", "middle" or "end" at ``x``."""

    x: float
    y: float
    lines: tuple[str, ...]
    anchor: str = "start"
    bold: bool = False
    size: int = FONT_SIZE
    tip: str = ""


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = "#000000"
    width: float = 1.0


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    radius: float
    fill: str
    tip: str = ""


@dataclass(frozen=True)
class Band:
    """A flow between two vertical edges: from (x0, y0 .. y0 + thickness) to (x1, y1 .. y1 + thickness), curved."""

    x0: float
    y0: float
    x1: float
    y1: float
    thickness: float
    fill: str
    tip: str = ""


BAND_STEPS = 24  # straight pieces per curve edge in the PNG (the SVG draws the true cubic curve)


def band_edge(band: Band, offset: float, steps: int = BAND_STEPS) -> list[tuple[float, float]]:
    """Points along one edge of a band: a cubic curve with horizontal tangents at both ends."""
    middle = (band.x0 + band.x1) / 2
    points = []
    for i in range(steps + 1):
        t = i / steps
        x = (1 - t) ** 3 * band.x0 + 3 * (1 - t) ** 2 * t * middle + 3 * (1 - t) * t**2 * middle + t**3 * band.x1
        y0, y1 = band.y0 + offset, band.y1 + offset
        y = (1 - t) ** 3 * y0 + 3 * (1 - t) ** 2 * t * y0 + 3 * (1 - t) * t**2 * y1 + t**3 * y1
        points.append((x, y))
    return points


Item = Box | Text | Line | Dot | Band


@dataclass
class Chart:
    width: int
    height: float
    title: str
    items: list[Item] = field(default_factory=list)


def clean_text(value: object) -> str:
    """The text on one line, without the control characters XML 1.0 forbids."""
    return " ".join(_XML_FORBIDDEN.sub("", str(value)).split())


def _text(value: object) -> str:
    return escape(clean_text(value))


def _fit(label: object, max_chars: int) -> str:
    label = clean_text(label)
    return label if len(label) <= max_chars else label[: max(max_chars - 1, 1)] + "…"


def wrap_label(label: object, max_chars: int, max_lines: int = MAX_LABEL_LINES) -> tuple[str, ...]:
    """The label on up to ``max_lines`` lines of ``max_chars``; the last line ends in "…" when it does not fit."""
    text = clean_text(label)
    if len(text) <= max_chars:
        return (text,)
    lines = textwrap.wrap(text, max_chars, break_long_words=True, break_on_hyphens=False)
    if len(lines) <= max_lines:
        return tuple(lines)
    kept = lines[: max_lines - 1]
    rest = " ".join(lines[max_lines - 1 :])
    return (*kept, _fit(rest, max_chars) if len(rest) > max_chars else rest + "…")


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def format_value(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


def _check(labels: Sequence[object], values: Sequence[float], what: str) -> None:
    if len(labels) != len(values):
        raise ValueError(f"{len(labels)} labels but {len(values)} {what}; give one value per label.")
    for label, value in zip(labels, values, strict=True):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise ValueError(f"The value for {label!r} is {value!r}; a bar needs a finite number of 0 or more.")


def label_column(labels: Sequence[object], width: int) -> tuple[float, int]:
    max_chars = max(4, int(width * 0.4 / CHAR_WIDTH))
    longest = max((len(line) for label in labels for line in wrap_label(label, max_chars)), default=0)
    return longest * CHAR_WIDTH + MARGIN * 2, max_chars


def chart_header(width: int, title: str, subtitle: str) -> tuple[list[Box | Text], float]:
    items: list[Box | Text] = [Text(MARGIN, 14, (clean_text(title),), bold=True, size=FONT_SIZE + 2)]
    top = _TITLE_HEIGHT
    if subtitle:
        lines = wrap_label(subtitle, max(20, int((width - 2 * MARGIN) / CHAR_WIDTH)), max_lines=4)
        items.append(Text(MARGIN, top + len(lines) * LINE_HEIGHT / 2 - 4, lines))
        top += len(lines) * LINE_HEIGHT + GAP
    return items, top


def _rows(labels: Sequence[object], max_chars: int, bar_height: int, top: float) -> list[tuple[tuple[str, ...], float]]:
    """(label lines, y of the row's top) per row: a row is as tall as its bar or its wrapped label."""
    rows, y = [], top
    for label in labels:
        lines = wrap_label(label, max_chars)
        rows.append((lines, y))
        y += max(bar_height, len(lines) * LINE_HEIGHT) + GAP
    return rows


def _row_height(lines: tuple[str, ...], bar_height: int) -> float:
    return max(bar_height, len(lines) * LINE_HEIGHT)


def row_label(label: object, lines: tuple[str, ...], middle: float, label_width: float) -> Text:
    # The full text as a tooltip wherever the lines do not show it as it is (cut short, or a word split).
    tip = clean_text(label) if " ".join(lines) != clean_text(label) else ""
    return Text(label_width - MARGIN, middle, lines, anchor="end", tip=tip)


def bar_chart(
    labels: Sequence[object],
    values: Sequence[float],
    *,
    title: str,
    subtitle: str = "",
    width: int = 640,
    bar_height: int = 18,
    value_labels: Sequence[str] | None = None,
    colours: Sequence[str] | None = None,
) -> Chart:
    """A horizontal bar chart, one bar per label in the order given, its value printed after the bar.

    ``value_labels`` replaces the printed numbers (e.g. ``"45 (12.3%)"``); bars are scaled to the largest value;
    ``colours`` gives a bar its own colour (e.g. a grey "Others" bar).
    """
    labels, values = list(labels), list(values)
    _check(labels, values, "values")
    if value_labels is not None and len(value_labels) != len(values):
        raise ValueError(f"{len(value_labels)} value labels for {len(values)} values; give one per bar.")
    printed = list(value_labels) if value_labels is not None else [format_value(v) for v in values]
    label_width, max_chars = label_column(labels, width)
    value_width = max((len(str(p)) for p in printed), default=0) * CHAR_WIDTH + MARGIN
    plot_width = max(width - label_width - value_width - MARGIN, 10)
    items, top = chart_header(width, title, subtitle)
    rows = _rows(labels, max_chars, bar_height, top)
    height = (rows[-1][1] + _row_height(rows[-1][0], bar_height) + GAP if rows else top) + MARGIN
    scale = plot_width / max(values) if values and max(values) > 0 else 0
    for index, (label, value, text) in enumerate(zip(labels, values, printed, strict=True)):
        lines, y = rows[index]
        middle = y + _row_height(lines, bar_height) / 2
        length = value * scale
        fill = colours[index] if colours is not None else BAR_COLOUR
        items.append(row_label(label, lines, middle, label_width))
        tip = f"{clean_text(label)}: {text}"
        items.append(Box(label_width, middle - bar_height / 2, length, bar_height, fill, tip))
        items.append(Text(label_width + length + 4, middle, (clean_text(text),)))
    return Chart(width, height, clean_text(title), items)


def stacked_bar_chart(
    categories: Sequence[object],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    subtitle: str = "",
    width: int = 640,
    bar_height: int = 18,
) -> Chart:
    """Horizontal stacked bars: one bar per category, one coloured segment per series, with a legend.

    ``series`` maps a series name (e.g. a framework: DeepSpeed, Megatron-LM, Colossal-AI) to one value per
    category, in the order of ``categories``. Colours repeat after eight series.
    """
    categories = list(categories)
    for name, values in series.items():
        _check(categories, list(values), f"values in the series {name!r}")
    totals = [sum(values[i] for values in series.values()) for i in range(len(categories))]
    label_width, max_chars = label_column(categories, width)
    value_width = max((len(format_value(t)) for t in totals), default=0) * CHAR_WIDTH + MARGIN
    plot_width = max(width - label_width - value_width - MARGIN, 10)
    items, legend_top = chart_header(width, title, subtitle)
    legend_rows = math.ceil(len(series) / 4)
    top = legend_top + legend_rows * (FONT_SIZE + GAP) + GAP
    column_width = (width - 2 * MARGIN) / 4
    for index, name in enumerate(series):
        x = MARGIN + (index % 4) * column_width
        y = legend_top + (index // 4) * (FONT_SIZE + GAP)
        items.append(Box(x, y, FONT_SIZE, FONT_SIZE, PALETTE[index % len(PALETTE)]))
        legend = _fit(name, int((column_width - FONT_SIZE - 8) / CHAR_WIDTH))
        tip = clean_text(name) if legend != name else ""
        items.append(Text(x + FONT_SIZE + 4, y + FONT_SIZE / 2, (legend,), tip=tip))
    rows = _rows(categories, max_chars, bar_height, top)
    height = (rows[-1][1] + _row_height(rows[-1][0], bar_height) + GAP if rows else top) + MARGIN
    scale = plot_width / max(totals) if totals and max(totals) > 0 else 0
    for row, category in enumerate(categories):
        lines, y = rows[row]
        middle = y + _row_height(lines, bar_height) / 2
        items.append(row_label(category, lines, middle, label_width))
        x = label_width
        for index, (name, values) in enumerate(series.items()):
            length = values[row] * scale
            if length > 0:
                tip = f"{clean_text(category)}, {clean_text(name)}: {format_value(values[row])}"
                items.append(Box(x, middle - bar_height / 2, length, bar_height, PALETTE[index % len(PALETTE)], tip))
            x += length
        items.append(Text(x + 4, middle, (format_value(totals[row]),)))
    return Chart(width, height, clean_text(title), items)


# --------------------------------------------------------------------------- SVG


def chart_svg(chart: Chart) -> str:
    height = _number(chart.height)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart.width}" height="{height}" '
        f'viewBox="0 0 {chart.width} {height}" role="img" aria-labelledby="chart-title" '
        f'font-family="{FONT}" font-size="{FONT_SIZE}">',
        f'<title id="chart-title">{_text(chart.title)}</title>',
        f'<rect width="{chart.width}" height="{height}" fill="#ffffff"/>',
    ]
    for item in chart.items:
        parts.append(_SVG_DRAW[type(item)](item))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _svg_box(box: Box) -> str:
    tip = f"<title>{_text(box.tip)}</title>" if box.tip else ""
    return (
        f'<rect x="{_number(box.x)}" y="{_number(box.y)}" width="{_number(box.width)}" '
        f'height="{_number(box.height)}" fill="{box.fill}">{tip}</rect>'
        if tip
        else f'<rect x="{_number(box.x)}" y="{_number(box.y)}" width="{_number(box.width)}" '
        f'height="{_number(box.height)}" fill="{box.fill}"/>'
    )


def _svg_line(line: Line) -> str:
    return (
        f'<line x1="{_number(line.x1)}" y1="{_number(line.y1)}" x2="{_number(line.x2)}" y2="{_number(line.y2)}" '
        f'stroke="{line.stroke}" stroke-width="{_number(line.width)}"/>'
    )


def _svg_dot(dot: Dot) -> str:
    tip = f"<title>{_text(dot.tip)}</title>" if dot.tip else ""
    head = f'<circle cx="{_number(dot.x)}" cy="{_number(dot.y)}" r="{_number(dot.radius)}" fill="{dot.fill}"'
    return f"{head}>{tip}</circle>" if tip else f"{head}/>"


def _svg_band(band: Band) -> str:
    middle = _number((band.x0 + band.x1) / 2)
    x0, x1 = _number(band.x0), _number(band.x1)
    top0, top1 = _number(band.y0), _number(band.y1)
    bottom0, bottom1 = _number(band.y0 + band.thickness), _number(band.y1 + band.thickness)
    path = (
        f"M{x0} {top0} C{middle} {top0} {middle} {top1} {x1} {top1} "
        f"L{x1} {bottom1} C{middle} {bottom1} {middle} {bottom0} {x0} {bottom0} Z"
    )
    tip = f"<title>{_text(band.tip)}</title>" if band.tip else ""
    head = f'<path d="{path}" fill="{band.fill}" fill-opacity="0.55"'
    return f"{head}>{tip}</path>" if tip else f"{head}/>"


def _svg_text(text: Text) -> str:
    attributes = [f'x="{_number(text.x)}"', f'y="{_number(text.y)}"']
    if text.anchor in ("end", "middle"):
        attributes.append(f'text-anchor="{text.anchor}"')
    if text.bold:
        attributes.append('font-weight="bold"')
    if text.size != FONT_SIZE:
        attributes.append(f'font-size="{text.size}"')
    tip = f"<title>{_text(text.tip)}</title>" if text.tip else ""
    if len(text.lines) == 1:
        attributes.append('dominant-baseline="middle"')
        return f"<text {' '.join(attributes)}>{tip}{_text(text.lines[0])}</text>"
    # Several lines: the block is centred on y; each line is a tspan one line height below the previous.
    first = text.y - (len(text.lines) - 1) * LINE_HEIGHT / 2
    attributes[1] = f'y="{_number(first)}"'
    attributes.append('dominant-baseline="middle"')
    spans = "".join(
        f'<tspan x="{_number(text.x)}" dy="{0 if i == 0 else LINE_HEIGHT}">{_text(line)}</tspan>'
        for i, line in enumerate(text.lines)
    )
    return f"<text {' '.join(attributes)}>{tip}{spans}</text>"


_SVG_DRAW = {Box: _svg_box, Text: _svg_text, Line: _svg_line, Dot: _svg_dot, Band: _svg_band}


# --------------------------------------------------------------------------- PNG


def chart_png(chart: Chart, *, scale: float = 2.0) -> bytes:
    """The chart as a PNG image, ``scale`` pixels per SVG unit."""
    from PIL import Image, ImageDraw, ImageFont  # imported here: only a PNG download needs Pillow

    size = (max(1, round(chart.width * scale)), max(1, round(chart.height * scale)))
    image = Image.new("RGB", size, "#ffffff")
    draw = ImageDraw.Draw(image, "RGBA")
    fonts: dict[tuple[int, bool], ImageFont.FreeTypeFont] = {}

    def font(points: int, bold: bool):
        key = (points, bold)
        if key not in fonts:
            fonts[key] = ImageFont.load_default(size=points * scale * (1.05 if bold else 1.0))
        return fonts[key]

    for item in chart.items:
        if isinstance(item, Line):
            points = [(item.x1 * scale, item.y1 * scale), (item.x2 * scale, item.y2 * scale)]
            draw.line(points, fill=item.stroke, width=max(1, round(item.width * scale)))
            continue
        if isinstance(item, Dot):
            x, y, r = item.x * scale, item.y * scale, item.radius * scale
            draw.ellipse([x - r, y - r, x + r, y + r], fill=item.fill)
            continue
        if isinstance(item, Band):
            top = band_edge(item, 0)
            bottom = band_edge(item, item.thickness)[::-1]
            draw.polygon([(x * scale, y * scale) for x, y in top + bottom], fill=_translucent(item.fill))
            continue
        if isinstance(item, Box):
            if item.width <= 0:
                continue
            x0, y0 = item.x * scale, item.y * scale
            draw.rectangle([x0, y0, x0 + item.width * scale - 1, y0 + item.height * scale - 1], fill=item.fill)
            continue
        first = item.y - (len(item.lines) - 1) * LINE_HEIGHT / 2
        anchor = {"end": "rm", "middle": "mm"}.get(item.anchor, "lm")
        for i, line in enumerate(item.lines):
            position = (item.x * scale, (first + i * LINE_HEIGHT) * scale)
            draw.text(position, line, fill="#000000", font=font(item.size, item.bold), anchor=anchor)
            if item.bold:  # the bundled font has no bold face: draw the title twice, a pixel apart
                draw.text(
                    (position[0] + 1, position[1]), line, fill="#000000", font=font(item.size, True), anchor=anchor
                )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _translucent(colour: str) -> tuple[int, int, int, int]:
    """A #rrggbb colour at the SVG bands' fill-opacity (0.55), for Pillow's RGBA drawing."""
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16), 140


# --------------------------------------------------------------------------- shortcuts


def bar_chart_svg(labels: Sequence[object], values: Sequence[float], *, title: str, **options) -> str:
    return chart_svg(bar_chart(labels, values, title=title, **options))


def stacked_bar_svg(
    categories: Sequence[object], series: Mapping[str, Sequence[float]], *, title: str, **options
) -> str:
    return chart_svg(stacked_bar_chart(categories, series, title=title, **options))
