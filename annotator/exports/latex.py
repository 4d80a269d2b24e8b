"""LaTeX tables for the paper, in the booktabs style (``\\usepackage{booktabs}``; nothing else is needed).

Every cell is escaped, so category names such as ``C++ & CUDA_ext 100%`` print as written. Numbers
(int, float, Decimal, ``Percent``, and text such as ``"45.1%"`` or ``"-3"``) are right-aligned unless
``align`` says otherwise; floats get ``float_digits`` decimals, negative numbers a real minus sign, and NaN
(an undefined agreement measure) prints as ``--``.

Grouping is rendered as group rows, not ``\\multirow``: ``group_by`` names one or more columns (outermost
first) whose values group consecutive rows. Those columns leave the table; each new value prints a row
spanning the table (level 1 bold, level 2 italic, deeper plain), and the data rows below are indented one
``\\quad`` per level. Group rows read well in narrow two-column papers and need no extra package.
"""

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    # Not special, but the default OT1 font encoding prints these as other glyphs.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # A line break inside a cell would end the row's source line; keep the cell on one line.
    "\n": " ",
    "\r": " ",
}
_ESCAPE_TABLE = str.maketrans(_SPECIAL)
_NUMERIC_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*%?", re.ASCII)
_LABEL = re.compile(r"[A-Za-z0-9:._/+-]+")
_ALIGN = re.compile(r"[lcr]|p\{[0-9.]+(?:cm|mm|in|pt|em|ex)\}")
_GROUP_STYLES = (r"\textbf{%s}", r"\textit{%s}")


@dataclass(frozen=True, slots=True)
class Percent:
    """A percentage given in percent points (45.1 means 45.1%), printed with ``digits`` decimals."""

    value: float
    digits: int = 1


def latex_escape(text: str) -> str:
    """``text`` with every LaTeX special character escaped, on one line."""
    return text.translate(_ESCAPE_TABLE)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float | Decimal | Percent):
        return True
    return isinstance(value, str) and _NUMERIC_TEXT.fullmatch(value.strip()) is not None


def _signed(text: str) -> str:
    # A hyphen is not a minus sign; $-$ sets the real one without changing the digits' font.
    return "$-$" + text[1:] if text.startswith("-") else text


def format_cell(value: Any, *, float_digits: int = 2) -> str:
    """The LaTeX source for one cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Percent):
        if not math.isfinite(value.value):
            return "--"
        return _signed(f"{value.value:.{value.digits}f}") + r"\%"
    if isinstance(value, float):
        return _signed(f"{value:.{float_digits}f}") if math.isfinite(value) else "--"
    if isinstance(value, Decimal) and not value.is_finite():
        return "--"
    if isinstance(value, int | Decimal):
        return _signed(str(value))
    return latex_escape(str(value))


def _column_spec(align: str | Sequence[str] | None, columns: list[list[Any]], width: int) -> list[str]:
    if align is None:
        return ["r" if cells and all(_is_number(c) for c in cells if c not in (None, "")) else "l" for cells in columns]
    specs = re.findall(r"p\{[^}]*\}|.", align) if isinstance(align, str) else list(align)
    if len(specs) != width:
        raise ValueError(f"align gives {len(specs)} column(s) but the table has {width}; give one spec per column.")
    for spec in specs:
        if not _ALIGN.fullmatch(spec):
            raise ValueError(f"Unknown column alignment {spec!r}; use l, c, r or p{{<width>}} such as p{{3cm}}.")
    return specs


def _group_row(value: Any, level: int, width: int, float_digits: int) -> str:
    text = format_cell(value, float_digits=float_digits)
    if level < len(_GROUP_STYLES):
        text = _GROUP_STYLES[level] % text
    indent = r"\quad " * level
    return rf"\multicolumn{{{width}}}{{@{{}}l}}{{{indent}{text}}} \\"


def booktabs_table(
    header: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    *,
    caption: str | None = None,
    label: str | None = None,
    align: str | Sequence[str] | None = None,
    group_by: int | Sequence[int] | None = None,
    float_digits: int = 2,
) -> str:
    """A booktabs table: a bare ``tabular``, or a ``table`` float when a caption or label is given.

    ``align`` is one spec per printed column (``"lrr"`` or ``["l", "p{4cm}"]``), the grouped columns not
    counted. ``group_by`` is the index (or outermost-first indices) of the grouping columns in ``header``.
    """
    header = list(header)
    groups = [group_by] if isinstance(group_by, int) else list(group_by or [])
    for index in groups:
        if not 0 <= index < len(header):
            raise ValueError(f"group_by column {index} does not exist; the header has {len(header)} columns.")
    if len(set(groups)) != len(groups):
        raise ValueError("group_by names the same column twice.")
    kept = [i for i in range(len(header)) if i not in groups]
    if not kept:
        raise ValueError("Every column is a grouping column; leave at least one column for the data.")
    if label is not None and not _LABEL.fullmatch(label):
        raise ValueError(f"The label {label!r} may hold only letters, digits and : . _ / + -, such as tab:symptoms.")

    body: list[tuple[list[Any], list[Any]]] = []
    for number, row in enumerate(rows, start=1):
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"Row {number} has {len(row)} cells but the header has {len(header)}.")
        body.append(([row[i] for i in groups], [row[i] for i in kept]))

    width = len(kept)
    columns = [[cells[c] for _, cells in body] for c in range(width)]
    spec = _column_spec(align, columns, width)

    lines = [rf"\begin{{tabular}}{{@{{}}{''.join(spec)}@{{}}}}", r"\toprule"]
    lines.append(" & ".join(format_cell(header[i], float_digits=float_digits) for i in kept) + r" \\")
    lines.append(r"\midrule")
    current: list[Any] = []
    for index, (keys, cells) in enumerate(body):
        changed_at = next((level for level, key in enumerate(keys) if current[level : level + 1] != [key]), None)
        if changed_at is not None:
            if changed_at == 0 and index > 0:
                lines.append(r"\addlinespace")
            for level in range(changed_at, len(keys)):
                lines.append(_group_row(keys[level], level, width, float_digits))
            current = list(keys)
        texts = [format_cell(cell, float_digits=float_digits) for cell in cells]
        if groups:
            texts[0] = r"\quad " * len(groups) + texts[0]
        lines.append(" & ".join(texts) + r" \\")
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")

    if caption is None and label is None:
        return "\n".join(lines) + "\n"
    head = [r"\begin{table}[htbp]", r"\centering"]
    if caption is not None:
        head.append(rf"\caption{{{latex_escape(caption)}}}")
    if label is not None:
        head.append(rf"\label{{{label}}}")
    return "\n".join([*head, *lines, r"\end{table}"]) + "\n"
