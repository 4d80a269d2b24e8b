"""Box-and-strip plots and flow charts: drawn to scale, bounded, nothing dropped silently, SVG and PNG alike."""

import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from annotator.exports.charts import Band, Box, Dot, Line, Text, chart_png, chart_svg
from annotator.exports.distribution_chart import box_strip_chart
from annotator.exports.flow_chart import OTHERS, flow_chart
from tests.annotator.exports.test_charts import assert_self_contained, parse

SVG = "{http://www.w3.org/2000/svg}"


def _boxes(chart) -> list[Box]:
    return [item for item in chart.items if isinstance(item, Box) and item.tip]


def test_the_box_spans_the_quartiles_and_the_median_line_sits_at_the_median():
    chart = box_strip_chart([("a", [0, 9, 99, 999, 9999])], title="Lines", log_scale=True)
    (box,) = _boxes(chart)
    assert "median 99" in box.tip and "IQR 9 to 999" in box.tip
    median = next(item for item in chart.items if isinstance(item, Line) and item.width == 2.0)
    # log10(1 + v): 9 -> 1, 99 -> 2, 999 -> 3, 9999 -> 4 of 4; the median is half way along the plot.
    left = box.x - (box.width / 2)  # q1 at 1/4 and q3 at 3/4 of the plot: the box is half the plot wide
    assert median.x1 == pytest.approx(left + box.width, rel=1e-6)
    assert box.x == pytest.approx(left + box.width / 2, rel=1e-6)


def test_a_linear_axis_puts_values_in_proportion():
    chart = box_strip_chart([("a", [0, 25, 50, 75, 100])], title="Hours", log_scale=False)
    (box,) = _boxes(chart)
    dots = sorted(item.x for item in chart.items if isinstance(item, Dot))
    plot = dots[-1] - dots[0]
    assert box.x - dots[0] == pytest.approx(plot * 0.25)
    assert box.width == pytest.approx(plot * 0.5)


def test_every_value_is_a_dot_up_to_the_limit_and_the_subtitle_says_when_thinned():
    few = box_strip_chart([("a", list(range(30)))], title="t", max_dots=50)
    assert sum(isinstance(item, Dot) for item in few.items) == 30
    many = box_strip_chart([("a", list(range(5000))), ("b", [1, 2])], title="t", max_dots=50)
    assert sum(isinstance(item, Dot) for item in many.items) == 52
    assert any(isinstance(item, Text) and "show 50 dots" in " ".join(item.lines) for item in many.items)


def test_a_group_without_values_is_shown_as_no_data_not_dropped():
    chart = box_strip_chart([("empty", []), ("full", [1, None, float("nan"), 3])], title="t")
    texts = [" ".join(item.lines) for item in chart.items if isinstance(item, Text)]
    assert "empty" in texts and "no data" in texts and "n = 2" in texts


def test_a_box_plot_is_well_formed_self_contained_svg_and_a_png_of_twice_its_size():
    chart = box_strip_chart([("<script>x</script>", [1, 2, 3]), ("b & c", [10, 20])], title="A & B")
    svg = chart_svg(chart)
    root = parse(svg)
    assert_self_contained(svg, root)
    assert len(list(root.iter(f"{SVG}circle"))) == 5 and list(root.iter(f"{SVG}line"))
    image = Image.open(io.BytesIO(chart_png(chart)))
    assert image.size == (chart.width * 2, round(chart.height * 2))


def test_flows_make_nodes_as_tall_as_their_issues_and_bands_as_thick_as_their_pairs():
    flows = [(("hang", "NCCL", "upgrade"), 6), (("hang", "config", "tune"), 2), (("OOM", "config", "tune"), 4)]
    chart = flow_chart(flows, columns=["Symptom", "Root cause", "Fix"], title="Flows")
    nodes = {item.tip: item for item in chart.items if isinstance(item, Box)}
    assert nodes["hang: 8"].height == pytest.approx(2 * nodes["OOM: 4"].height)
    assert nodes["config: 6"].height == pytest.approx(nodes["NCCL: 6"].height)
    bands = {item.tip: item for item in chart.items if isinstance(item, Band)}
    assert set(bands) == {
        "hang → NCCL: 6",
        "hang → config: 2",
        "OOM → config: 4",
        "NCCL → upgrade: 6",
        "config → tune: 6",
    }
    assert bands["hang → NCCL: 6"].thickness == pytest.approx(3 * bands["hang → config: 2"].thickness)
    # The bands leaving a node fill it exactly, top to bottom.
    hang = nodes["hang: 8"]
    leaving = sorted((b for t, b in bands.items() if t.startswith("hang")), key=lambda b: b.y0)
    assert leaving[0].y0 == pytest.approx(hang.y)
    assert leaving[-1].y0 + leaving[-1].thickness == pytest.approx(hang.y + hang.height)


def test_a_column_with_too_many_categories_sums_the_smallest_as_others_and_says_so():
    flows = [((f"s{i}", "r"), 100 - i) for i in range(20)]
    chart = flow_chart(flows, columns=["Symptom", "Root cause"], title="t", max_nodes=5)
    nodes = [item.tip for item in chart.items if isinstance(item, Box)]
    assert f"{OTHERS}: {sum(100 - i for i in range(4, 20))}" in nodes
    assert sum(int(tip.rsplit(": ", 1)[1]) for tip in nodes if not tip.startswith("r:")) == sum(n for _, n in flows)
    assert any("16 smallest categories are summed" in " ".join(i.lines) for i in chart.items if isinstance(i, Text))


def test_a_flow_chart_renders_curved_bands_in_svg_and_png():
    chart = flow_chart([(("a", "b"), 3), (("c", "b"), 1)], columns=["x", "y"], title="t")
    svg = chart_svg(chart)
    root = parse(svg)
    assert_self_contained(svg, root)
    paths = list(root.iter(f"{SVG}path"))
    assert len(paths) == 2 and all(" C" in p.attrib["d"] for p in paths)
    assert Image.open(io.BytesIO(chart_png(chart))).format == "PNG"


@pytest.mark.parametrize(
    ("flows", "columns", "message"),
    [
        ([(("a", "b"), 1)], ["only"], "at least two columns"),
        ([(("a",), 1)], ["x", "y"], "1 categories for 2 columns"),
        ([(("a", "b"), -1)], ["x", "y"], "whole number"),
        ([(("a", "b"), 1.5)], ["x", "y"], "whole number"),
    ],
)
def test_bad_flows_are_refused_with_a_message(flows, columns, message):
    with pytest.raises(ValueError, match=message):
        flow_chart(flows, columns=columns, title="t")


def test_an_empty_flow_chart_and_an_empty_box_plot_are_still_valid():
    for chart in (flow_chart([], columns=["x", "y"], title="t"), box_strip_chart([], title="t")):
        assert parse(chart_svg(chart)).tag == f"{SVG}svg"
        assert math.isfinite(chart.height)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(max_size=30), st.lists(st.integers(min_value=0, max_value=10**6), max_size=40)),
        max_size=6,
    )
)
def test_property_any_labels_and_values_give_well_formed_svg(groups):
    assert parse(chart_svg(box_strip_chart(groups, title="t"))).tag == f"{SVG}svg"
