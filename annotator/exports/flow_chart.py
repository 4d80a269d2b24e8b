"""A Sankey-style flow chart (e.g. symptom -> root cause -> fix pattern), laid out for the SVG and PNG renderers.

Each column is one dimension; a node is a category, as tall as the issues through it; a band joins two nodes
of neighbouring columns, as thick as the issues with both. Nodes are ordered by size (largest on top), bands
leave and enter a node in the order of the nodes they join, so bands cross as little as a fixed order allows.
A column with more than ``max_nodes`` categories shows its largest ``max_nodes - 1`` and one grey "Others"
node for the rest, and the subtitle says so: nothing is dropped. Pure Python, no Django.
"""

from collections import Counter, defaultdict
from collections.abc import Sequence

from .charts import (
    CHAR_WIDTH,
    FONT_SIZE,
    LINE_HEIGHT,
    MARGIN,
    OTHERS_COLOUR,
    PALETTE,
    Band,
    Box,
    Chart,
    Text,
    chart_header,
    clean_text,
    wrap_label,
)

MAX_NODES = 12
OTHERS = "Others"
NODE_WIDTH = 12
NODE_GAP = 8
_MIN_PLOT_HEIGHT = 240
_PER_NODE = 30


def _grouped(flows: Sequence[tuple[Sequence[str], int]], columns: int, max_nodes: int):
    """The flows with each column's small categories merged into OTHERS, and the columns that were merged."""
    totals = [Counter() for _ in range(columns)]
    for path, n in flows:
        for column, name in enumerate(path):
            totals[column][name] += n
    kept, merged = [], []
    for column, counter in enumerate(totals):
        ordered = sorted(counter, key=lambda name: (-counter[name], name))
        if len(ordered) > max_nodes:
            kept.append(set(ordered[: max_nodes - 1]))
            merged.append((column, len(ordered) - (max_nodes - 1)))
        else:
            kept.append(set(ordered))
    grouped: Counter = Counter()
    for path, n in flows:
        grouped[tuple(name if name in kept[c] else OTHERS for c, name in enumerate(path))] += n
    return grouped, merged


def flow_chart(
    flows: Sequence[tuple[Sequence[str], int]],
    *,
    columns: Sequence[str],
    title: str,
    subtitle: str = "",
    width: int = 760,
    max_nodes: int = MAX_NODES,
) -> Chart:
    """``flows``: (one category per column, issues) for every combination; ``columns``: the dimensions' names."""
    k = len(columns)
    if k < 2:
        raise ValueError("A flow chart joins at least two columns; give two or more column names.")
    if max_nodes < 2:
        raise ValueError("Each column needs room for at least two nodes; give max_nodes of 2 or more.")
    for path, n in flows:
        if len(path) != k:
            raise ValueError(f"The flow {tuple(path)!r} has {len(path)} categories for {k} columns.")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"The flow {tuple(path)!r} counts {n!r} issues; give a whole number of 0 or more.")
    grouped, merged = _grouped([(tuple(map(clean_text, p)), n) for p, n in flows if n > 0], k, max_nodes)
    notes = [subtitle] if subtitle else []
    for column, rest in merged:
        notes.append(f"{columns[column]}: the {rest} smallest categories are summed as '{OTHERS}'.")
    items, top = chart_header(width, title, " ".join(notes))
    # Column headings.
    spacing = (width - 2 * MARGIN - NODE_WIDTH) / (k - 1)
    xs = [MARGIN + i * spacing for i in range(k)]
    for i, name in enumerate(columns):
        anchor = "start" if i == 0 else "end" if i == k - 1 else "middle"
        x = xs[i] if i == 0 else xs[i] + NODE_WIDTH if i == k - 1 else xs[i] + NODE_WIDTH / 2
        items.append(Text(x, top + 6, (clean_text(name),), anchor=anchor, bold=True))
    top += LINE_HEIGHT + 8
    totals = [Counter() for _ in range(k)]
    links = [Counter() for _ in range(k - 1)]
    for path, n in grouped.items():
        for c in range(k):
            totals[c][path[c]] += n
        for c in range(k - 1):
            links[c][(path[c], path[c + 1])] += n
    orders = [sorted(t, key=lambda name: (name == OTHERS, -t[name], name)) for t in totals]
    most = max((len(order) for order in orders), default=0)
    plot_height = max(_MIN_PLOT_HEIGHT, most * _PER_NODE)
    total = sum(grouped.values())
    scale = (plot_height - NODE_GAP * max(most - 1, 0)) / total if total else 0.0
    # Node positions: (top y, height) per column and name, the columns stacked from the top.
    nodes: list[dict[str, tuple[float, float]]] = []
    for c, order in enumerate(orders):
        y, placed = top, {}
        for name in order:
            height = max(totals[c][name] * scale, 1.0)
            placed[name] = (y, height)
            y += height + NODE_GAP
        nodes.append(placed)
    # A band has the colour of the node it leaves; "Others" is grey wherever it is.
    colours = [
        {name: OTHERS_COLOUR if name == OTHERS else PALETTE[i % len(PALETTE)] for i, name in enumerate(order)}
        for order in orders
    ]
    # Bands: leave each node in the order of their targets, enter each node in the order of their sources.
    for c in range(k - 1):
        outgoing: dict[str, float] = defaultdict(float)
        incoming: dict[str, float] = defaultdict(float)
        rank = {name: i for i, name in enumerate(orders[c + 1])}
        source_rank = {name: i for i, name in enumerate(orders[c])}
        pairs = sorted(links[c].items(), key=lambda item: (source_rank[item[0][0]], rank[item[0][1]]))
        entering = sorted(pairs, key=lambda item: (rank[item[0][1]], source_rank[item[0][0]]))
        enter_at = {}
        for (source, target), n in entering:
            enter_at[(source, target)] = nodes[c + 1][target][0] + incoming[target]
            incoming[target] += n * scale
        for (source, target), n in pairs:
            thickness = n * scale
            y0 = nodes[c][source][0] + outgoing[source]
            outgoing[source] += thickness
            colour = colours[c][source]
            tip = f"{source} → {target}: {n}"
            items.append(Band(xs[c] + NODE_WIDTH, y0, xs[c + 1], enter_at[(source, target)], thickness, colour, tip))
    # Nodes and their labels (to the right of a node; to the left in the last column).
    max_chars = max(8, int((spacing - NODE_WIDTH - 8) / CHAR_WIDTH / (2 if k > 2 else 1)))
    for c, placed in enumerate(nodes):
        for name, (y, height) in placed.items():
            fill = OTHERS_COLOUR if name == OTHERS else "#444444"
            items.append(Box(xs[c], y, NODE_WIDTH, height, fill, f"{name}: {totals[c][name]}"))
            lines = wrap_label(f"{name} ({totals[c][name]})", max_chars, max_lines=2)
            middle = y + height / 2
            if c == k - 1:
                items.append(Text(xs[c] - 4, middle, lines, anchor="end", size=FONT_SIZE - 1))
            else:
                items.append(Text(xs[c] + NODE_WIDTH + 4, middle, lines, size=FONT_SIZE - 1))
    return Chart(width, top + plot_height + 2 * MARGIN + LINE_HEIGHT, clean_text(title), items)
