"""Bar charts: SVG well-formed, self-contained, escaped and drawn to scale; long labels wrapped; PNG the same."""

import io
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from annotator.exports.charts import (
    BAR_COLOUR,
    LINE_HEIGHT,
    PALETTE,
    Box,
    bar_chart,
    bar_chart_svg,
    chart_png,
    clean_text,
    stacked_bar_svg,
    wrap_label,
)

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))  # noqa: S314 - our own output, parsed to prove it is well-formed


def bars(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]


def assert_self_contained(svg: str, root: ET.Element) -> None:
    assert root.tag == f"{SVG}svg"
    assert not list(root.iter(f"{SVG}script"))
    assert not list(root.iter(f"{SVG}style"))
    assert not list(root.iter(f"{SVG}image"))
    assert not list(root.iter(f"{SVG}foreignObject"))
    for element in root.iter():
        assert "style" not in element.attrib
        assert not any(name.startswith("on") for name in element.attrib)
        assert not any("href" in name for name in element.attrib)
    assert "url(" not in svg and "@import" not in svg


def test_a_bar_chart_is_well_formed_and_self_contained():
    svg = bar_chart_svg(["crash", "hang", "wrong result"], [12, 3, 0], title="Symptoms (n=15)")
    root = parse(svg)
    assert_self_contained(svg, root)
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    assert root.find(f"{SVG}title").text == "Symptoms (n=15)"
    assert [t.text for t in root.iter(f"{SVG}text")] == [
        "Symptoms (n=15)",
        "crash",
        "12",
        "hang",
        "3",
        "wrong result",
        "0",
    ]


def test_bars_are_proportional_and_in_the_order_given():
    root = parse(bar_chart_svg(["a", "b", "c"], [10, 5, 0], title="t"))
    widths = [float(r.get("width")) for r in bars(root)]
    ys = [float(r.get("y")) for r in bars(root)]
    assert widths[1] == pytest.approx(widths[0] / 2, abs=0.01)
    assert widths[2] == 0
    assert ys == sorted(ys)
    assert max(float(r.get("x")) + float(r.get("width")) for r in bars(root)) < 640


def test_the_height_grows_with_the_number_of_bars():
    small = parse(bar_chart_svg(["a"], [1], title="t", bar_height=18))
    large = parse(bar_chart_svg(list("abcdefghij"), [1] * 10, title="t", bar_height=18))
    assert float(large.get("height")) - float(small.get("height")) == pytest.approx(9 * (18 + 6))
    assert large.get("width") == "640"


def test_hostile_labels_are_escaped_text_not_markup():
    label = '<script>alert(1)</script>&"q"\x00\x07 ok'
    svg = bar_chart_svg([label, label * 3], [1, 2], title="<script>t</script>")
    root = parse(svg)
    assert_self_contained(svg, root)
    assert "<script>" not in svg
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert '<script>alert(1)</script>&"q" ok' in texts
    assert "<script>t</script>" in texts
    wrapped = next(t for t in root.iter(f"{SVG}text") if t.findall(f"{SVG}tspan"))
    shown = " ".join(span.text for span in wrapped.findall(f"{SVG}tspan"))
    assert shown == '<script>alert(1)</script>&"q" ok' * 3  # wrapped at its spaces, every character kept


def test_a_long_label_wraps_onto_lines_instead_of_being_cut():
    label = "distributed feature, API, and communication tuning"
    root = parse(bar_chart_svg([label, "b"], [1, 2], title="t", width=400))
    text = next(t for t in root.iter(f"{SVG}text") if t.findall(f"{SVG}tspan"))
    lines = [span.text for span in text.findall(f"{SVG}tspan")]
    assert len(lines) == 2 and " ".join(lines) == label  # every word shown, none cut
    assert [span.get("dy") for span in text.findall(f"{SVG}tspan")] == ["0", str(LINE_HEIGHT)]


def test_a_wrapped_row_is_taller_and_the_next_bar_starts_below_it():
    short = parse(bar_chart_svg(["a", "b"], [1, 1], title="t", width=300))
    tall = parse(bar_chart_svg(["a " * 60, "b"], [1, 1], title="t", width=300))
    assert float(tall.get("height")) - float(short.get("height")) == pytest.approx(3 * LINE_HEIGHT - 18)
    ys = [float(r.get("y")) for r in bars(tall)]
    # Bars sit in the middle of their rows: the first row is three lines tall, the gap between rows is 6.
    assert ys[1] - ys[0] == pytest.approx(3 * LINE_HEIGHT + 6 - (3 * LINE_HEIGHT - 18) / 2)


def test_a_label_longer_than_three_lines_ends_in_an_ellipsis_and_keeps_its_text_in_a_tooltip():
    label = "distributed feature, API, and communication tuning " * 3
    root = parse(bar_chart_svg([label], [1], title="t"))
    text = next(t for t in root.iter(f"{SVG}text") if t.find(f"{SVG}title") is not None)
    assert text.find(f"{SVG}title").text == " ".join(label.split())
    lines = [span.text for span in text.findall(f"{SVG}tspan")]
    assert len(lines) == 3 and lines[-1].endswith("…")


@pytest.mark.parametrize("width", [4, 10, 41])
@given(label=st.text(max_size=200))
def test_property_wrapped_lines_fit_and_lose_no_text_unless_marked(width, label):
    lines = wrap_label(label, width)
    assert 1 <= len(lines) <= 3
    assert all(len(line) <= width for line in lines)
    if not lines[-1].endswith("…"):
        assert "".join(" ".join(lines).split()) == "".join(clean_text(label).split())


def test_value_labels_replace_the_printed_numbers():
    root = parse(bar_chart_svg(["a", "b"], [45, 12], title="t", value_labels=["45 (78.9%)", "12 (21.1%)"]))
    assert "45 (78.9%)" in [t.text for t in root.iter(f"{SVG}text")]


def test_fractions_print_with_three_significant_digits():
    root = parse(bar_chart_svg(["a"], [0.45123], title="t"))
    assert "0.451" in [t.text for t in root.iter(f"{SVG}text")]


def test_all_zero_values_draw_empty_bars():
    root = parse(bar_chart_svg(["a", "b"], [0, 0], title="t"))
    assert [float(r.get("width")) for r in bars(root)] == [0, 0]


def test_an_empty_chart_is_still_valid():
    assert_self_contained(svg := bar_chart_svg([], [], title="nothing yet"), parse(svg))


@pytest.mark.parametrize(
    ("labels", "values", "message"),
    [
        (["a", "b"], [1], "2 labels but 1 values"),
        (["a"], [-1], "finite number of 0 or more"),
        (["a"], [float("nan")], "finite number"),
        (["a"], ["3"], "finite number"),
    ],
)
def test_bad_input_is_refused_with_a_message(labels, values, message):
    with pytest.raises(ValueError, match=message):
        bar_chart_svg(labels, values, title="t")


def test_stacked_bars_sum_the_series_and_have_a_legend():
    series = {"DeepSpeed": [10, 2], "Megatron-LM": [5, 0], "Colossal-AI <&>": [5, 8]}
    svg = stacked_bar_svg(["crash", "hang"], series, title="Symptoms by framework")
    root = parse(svg)
    assert_self_contained(svg, root)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"DeepSpeed", "Megatron-LM", "Colossal-AI <&>"} <= set(texts)
    assert "20" in texts and "10" in texts  # totals
    segments = bars(root)
    assert len(segments) == 5  # the zero segment is not drawn
    crash = [s for s in segments if s.find(f"{SVG}title").text.startswith("crash")]
    assert [s.get("fill") for s in crash] == list(PALETTE[:3])
    assert float(crash[0].get("width")) == pytest.approx(2 * float(crash[1].get("width")), abs=0.01)
    # segments of a bar touch: each starts where the previous ended
    assert float(crash[1].get("x")) == pytest.approx(float(crash[0].get("x")) + float(crash[0].get("width")), abs=0.01)


def test_stacked_bars_refuse_a_series_of_the_wrong_length():
    with pytest.raises(ValueError, match="series 'b'"):
        stacked_bar_svg(["x", "y"], {"a": [1, 2], "b": [1]}, title="t")


@given(st.lists(st.text(max_size=40), max_size=6), st.text(max_size=40))
def test_property_any_text_gives_well_formed_svg(labels, title):
    svg = bar_chart_svg(labels, list(range(len(labels))), title=title)
    assert_self_contained(svg, parse(svg))


def test_a_subtitle_says_what_the_chart_leaves_out():
    svg = bar_chart_svg(["a", "Others"], [3, 9], title="t", subtitle="The 1 largest of 5 rows; the other 4 are summed.")
    assert "The 1 largest of 5 rows; the other 4 are summed." in [t.text for t in parse(svg).iter(f"{SVG}text")]


def _pixel(image: Image.Image, x: float, y: float) -> str:
    return "#{:02X}{:02X}{:02X}".format(*image.getpixel((round(x), round(y))))


def test_the_png_has_the_svg_layout_at_twice_the_size():
    chart = bar_chart(["crash", "hang"], [12, 3], title="Symptoms")
    image = Image.open(io.BytesIO(chart_png(chart)))
    assert image.format == "PNG"
    assert image.size == (chart.width * 2, round(chart.height * 2))
    first = next(item for item in chart.items if isinstance(item, Box))
    middle = (first.x + first.width / 2) * 2, (first.y + first.height / 2) * 2
    assert _pixel(image, *middle) == BAR_COLOUR.upper()
    assert _pixel(image, 1, 1) == "#FFFFFF"


def test_the_png_draws_text_with_the_bundled_font():
    blank = Image.open(io.BytesIO(chart_png(bar_chart([], [], title=""))))
    titled = Image.open(io.BytesIO(chart_png(bar_chart([], [], title="Symptoms per stage"))))
    assert blank.getextrema() != titled.getextrema() or list(blank.getdata()) != list(titled.getdata())
    assert titled.convert("L").getextrema()[0] < 100  # dark text pixels exist


def test_the_png_of_a_hostile_label_is_still_an_image():
    label = '<script>alert(1)</script>&"q"\x00\x07 ok ' * 10
    assert chart_png(bar_chart([label], [1], title=label)).startswith(b"\x89PNG\r\n\x1a\n")
