"""CSV that is safe to open in a spreadsheet, streamed one line at a time.

A cell whose text starts with a formula trigger (OWASP: ``=`` ``+`` ``-`` ``@`` tab, carriage return; here
also line feed and the full-width and small-form variants that East Asian spreadsheets accept), possibly
after leading whitespace, is prefixed with a single quote so the spreadsheet shows it as text instead of
running it. Plain numbers such as ``-3``, ``-0.5`` or ``1e5`` are left alone: they are data, not formulas.

Pure Python, no Django: the export views wrap ``csv_rows`` in a streaming response.
"""

import csv
import re
from collections.abc import Iterable, Iterator
from datetime import date, datetime, time
from typing import Any

FORMULA_TRIGGERS = frozenset(
    "=+-@\t\r\n"
    "\uff1d\uff0b\uff0d\uff20"  # full-width ＝ ＋ － ＠
    "\ufe66\ufe62\ufe63\ufe6b"  # small-form ﹦ ﹢ ﹣ ﹫
)
# Invisible characters a spreadsheet may skip before deciding that a cell is a formula.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
BOM = "\ufeff"


def is_plain_number(text: str) -> bool:
    """True for a decimal number written plainly (``-3``, ``+0.5``, ``1e-5``), with no spaces around it."""
    return _PLAIN_NUMBER.fullmatch(text) is not None


def is_formula_like(text: str) -> bool:
    """True when a spreadsheet could read ``text`` as a formula, i.e. when ``safe_cell`` adds a quote."""
    if not text:
        return False
    first = text[0]
    if first in FORMULA_TRIGGERS:
        return not is_plain_number(text)
    if first.isspace() or first in _INVISIBLE:
        for char in text:
            if char.isspace() or char in _INVISIBLE:
                continue
            return char in FORMULA_TRIGGERS  # text has leading blanks, so it is never a plain number
    return False


def cell_text(value: Any) -> str:
    """The text a value is written as: '' for None, true/false, ISO 8601 for dates and times, else str()."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return str(value)


def safe_cell(value: Any) -> str:
    """The value as CSV cell text, with a leading ``'`` when a spreadsheet would otherwise run it as a formula."""
    text = cell_text(value)
    return "'" + text if is_formula_like(text) else text


class _LineBuffer:
    """The smallest file-like object csv.writer needs: it keeps only the line being written."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def take(self) -> str:
        line = "".join(self.parts)
        self.parts.clear()
        return line


def csv_rows(
    header: Iterable[Any] | None,
    rows: Iterable[Iterable[Any]],
    *,
    bom: bool = False,
    delimiter: str = ",",
) -> Iterator[str]:
    """Yield the CSV text line by line (``\\r\\n`` endings, RFC 4180 quoting), every cell through ``safe_cell``.

    ``rows`` is consumed lazily, so memory stays constant however long the export is. ``header`` None writes
    no header line. ``bom=True`` starts the output with a UTF-8 byte order mark so Excel detects the encoding;
    ``delimiter=";"`` suits spreadsheets in locales that use the decimal comma.
    """
    buffer = _LineBuffer()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    prefix = BOM if bom else ""
    if header is not None:
        writer.writerow([safe_cell(value) for value in header])
        yield prefix + buffer.take()
        prefix = ""
    for row in rows:
        writer.writerow([safe_cell(value) for value in row])
        yield prefix + buffer.take()
        prefix = ""
    if prefix:  # nothing at all was written: still mark the (empty) file as UTF-8
        yield prefix
