"""Reading rater spreadsheets (.xlsx, .csv) into plain ``Sheet`` objects; no interpretation of the labels."""

import csv
import datetime as dt
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException
from rapidfuzz.distance import OSA

from ..label_cleaning import allowed_distance

FINAL_SUFFIX = " final"
CSV_SNIFF_BYTES = 64 * 1024


class SheetReadError(ValueError):
    """A spreadsheet that cannot be read at all; the message says which file and what to do."""


@dataclass(slots=True)
class SheetRow:
    line: int  # the row number a person sees in the spreadsheet program (header = 1)
    values: dict[str, str | None]  # normalised header -> cell text, None for an empty cell


@dataclass(slots=True)
class Sheet:
    name: str  # the worksheet's title; a CSV file's name without extension
    source: str  # the file name
    headers: list[str]  # as written, one per kept column
    rows: list[SheetRow] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)  # normalised header -> header as written

    def location(self, line: int | None = None) -> str:
        where = f"{self.source}, sheet '{self.name}'"
        return f"{where}, line {line}" if line is not None else where


def normalise_header(header: object) -> str:
    """Headers compare like labels: NFKC, casefold, '-' and '_' as spaces, whitespace collapsed."""
    if header is None:
        return ""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", str(header)).casefold())
    text = text.replace("_", " ").replace("-", " ")
    return " ".join(text.split())


def _without_final(header: str) -> str:
    stripped = header.removesuffix(FINAL_SUFFIX)
    return stripped or header


def find_column(sheet: Sheet, wanted: str) -> str | None:
    """The key (normalised header) of the column that means ``wanted``, or None when no column does.

    Tolerates case, spacing, '-'/'_', a " Final" suffix (the after-discussion sheet) and small typos
    ("Distributed-specified" for "distributed-specific"); a typo match must be the single nearest column.
    """
    target = _without_final(normalise_header(wanted))
    if not target:
        return None
    keys = list(sheet.columns)
    for key in keys:
        if key == target:
            return key
    for key in keys:
        if _without_final(key) == target:
            return key
    scored = []
    for key in keys:
        candidate = _without_final(key)
        limit = allowed_distance(min(len(candidate), len(target)))
        distance = OSA.distance(candidate, target, score_cutoff=limit)
        if distance <= limit:
            scored.append((distance, key))
    scored.sort()
    if scored and (len(scored) == 1 or scored[0][0] < scored[1][0]):
        return scored[0][1]
    return None


def cell_text(value: object) -> str | None:
    """A cell as text: None for empty, whole numbers without '.0', dates in ISO form, text as written."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    text = str(value)
    return text if text.strip() else None


def _table(source: str, name: str, raw_rows: Iterable[Sequence[object]]) -> Sheet:
    """Build a Sheet from raw rows: first non-empty row is the header; empty rows and columns go."""
    rows = iter(raw_rows)
    header_line = 0
    header: list[str | None] = []
    for header_line, raw in enumerate(rows, start=1):  # noqa: B007 - the line is used after the loop
        header = [cell_text(v) for v in raw]
        if any(header):
            break
    else:
        return Sheet(name=name, source=source, headers=[])
    body = [(line, [cell_text(v) for v in raw]) for line, raw in enumerate(rows, start=header_line + 1)]
    width = max([len(header)] + [len(cells) for _, cells in body])
    used = [
        i
        for i in range(width)
        if (i < len(header) and header[i]) or any(i < len(cells) and cells[i] is not None for _, cells in body)
    ]
    keys: list[str] = []
    columns: dict[str, str] = {}
    headers: list[str] = []
    for i in used:
        written = (header[i] if i < len(header) else None) or ""
        key = normalise_header(written) or f"column {get_column_letter(i + 1).lower()}"
        if key in columns:  # a repeated header keeps its data under a distinct key
            key = f"{key} ({get_column_letter(i + 1).lower()})"
        keys.append(key)
        columns[key] = written
        headers.append(written)
    sheet = Sheet(name=name, source=source, headers=headers, columns=columns)
    for line, cells in body:
        values = {key: (cells[i] if i < len(cells) else None) for key, i in zip(keys, used, strict=True)}
        if any(v is not None for v in values.values()):
            sheet.rows.append(SheetRow(line=line, values=values))
    return sheet


def _read_xlsx(path: Path, sheet_names: Sequence[str] | None) -> Iterator[Sheet]:
    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise SheetReadError(f"{path.name} is not a readable .xlsx workbook ({exc}); save it again as .xlsx.") from exc
    try:
        titles = workbook.sheetnames
        for wanted in sheet_names or ():
            if wanted not in titles:
                raise SheetReadError(f"{path.name} has no sheet '{wanted}'; its sheets are: {', '.join(titles)}.")
        for title in titles:
            if sheet_names is None or title in sheet_names:
                yield _table(path.name, title, workbook[title].iter_rows(values_only=True))
    finally:
        workbook.close()


def _read_csv(path: Path) -> Sheet:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SheetReadError(f"{path.name} is not UTF-8 text; export it again as CSV UTF-8.") from exc
    try:
        dialect = csv.Sniffer().sniff(text[:CSV_SNIFF_BYTES], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel  # one column, or nothing to sniff: plain commas
    return _table(path.name, path.stem, csv.reader(text.splitlines(), dialect))


def read_sheets(
    path_or_paths: str | Path | Iterable[str | Path], *, sheet_names: Sequence[str] | None = None
) -> dict[str, Sheet]:
    """Read .xlsx workbooks and .csv files into ``{key: Sheet}``, in file then sheet order.

    ``sheet_names`` restricts which worksheets are read (an absent one is an error; a CSV file is always read).
    Keys are sheet names; when two files hold sheets of the same name, every key becomes
    "<file name>:<sheet name>" so none is lost.
    """
    paths = [Path(path_or_paths)] if isinstance(path_or_paths, str | Path) else [Path(p) for p in path_or_paths]
    sheets: list[Sheet] = []
    for path in paths:
        if not path.is_file():
            raise SheetReadError(f"{path.name}: no such file.")
        suffix = path.suffix.lower()
        if suffix == ".xlsx":
            sheets.extend(_read_xlsx(path, sheet_names))
        elif suffix == ".csv":
            sheets.append(_read_csv(path))
        else:
            raise SheetReadError(f"{path.name}: only .xlsx and .csv files can be read; save it in one of these.")
    names = [sheet.name for sheet in sheets]
    if len(set(names)) == len(names):
        return {sheet.name: sheet for sheet in sheets}
    return {f"{sheet.source}:{sheet.name}": sheet for sheet in sheets}
