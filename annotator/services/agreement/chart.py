"""The trend over rounds as an inline SVG drawn on the server (no script, no inline style: CSS classes only)."""

from typing import Any

WIDTH, HEIGHT, PAD = 360, 140, 24
SERIES = 6  # CSS classes series-0 .. series-5


def _y(value: float) -> float:
    clamped = max(0.0, min(1.0, value))  # a kappa below 0 is drawn at 0: the chart is about reaching the threshold
    return round(PAD + (1 - clamped) * (HEIGHT - 2 * PAD), 1)


def trend_chart(dimensions: list[dict], threshold: float) -> dict[str, Any] | None:
    """Points of one polyline per dimension (x: round, y: kappa or alpha), a threshold line, and axis ticks."""
    rounds = sorted({point["round"] for d in dimensions for point in d["trend"]})
    if not rounds:
        return None
    step = (WIDTH - 2 * PAD) / max(len(rounds) - 1, 1)
    x = {number: round(PAD + i * step, 1) for i, number in enumerate(rounds)}
    series = []
    for i, d in enumerate(dimensions):
        points = [(x[p["round"]], _y(p["value"])) for p in d["trend"] if p["value"] is not None]
        series.append(
            {
                "name": d["name"],
                "css": f"series-{i % SERIES}",
                "points": " ".join(f"{px},{py}" for px, py in points),
                "dots": [{"x": px, "y": py} for px, py in points],
            }
        )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "series": series,
        "threshold_y": _y(threshold),
        "ticks": [{"x": x[number], "label": number} for number in rounds],
        "y_ticks": [{"y": _y(v), "label": f"{v:.1f}"} for v in (0.0, 0.5, 1.0)],
        "left": PAD,
        "right": WIDTH - PAD,
        "bottom": HEIGHT - PAD,
    }
