"""Reading rater spreadsheets (.xlsx, .csv) into plain ``Sheet`` objects; no interpretation of the labels."""

import csv
import datetime as dt
import unicodedata
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import ParseError

from ..archives import ArchiveLimits, ArchiveTooLarge, archive_check
from ..label_cleaning import allowed_distance

FINAL_SUFFIX = " final"
CSV_SNIFF_BYTES = 64 * 1024
SHEET_MAX_ROWS = 1_048_576  # the most a worksheet can have; a row number beyond it is not a workbook's


class SheetReadError(ValueError):
    """A spreadsheet that cannot be read at all; the message says which file and what to do."""


@dataclass(frozen=True, slots=True)
class SheetLimits:
    """How much of a spreadsheet is read. Only real cells count: a sheet that declares a huge range but holds
    a few cells costs a few cells, and one whose data reaches beyond a limit is refused, never truncated."""

    max_rows: int = 100_000  # the last row with a value, per sheet
    max_columns: int = 1_000  # the last column with a value, per row
    max_cells: int = 200_000  # rows kept x columns kept, over all sheets of a call
    max_uncompressed_bytes: int = 200 << 20  # what an .xlsx workbook (a zip) may expand to
    max_entries: int = 1_000  # files inside an .xlsx workbook


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
    from rapidfuzz.distance import OSA  # imported where used: web workers that never import sheets skip it

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


class _CellBudget:
    """Counts what a read keeps, over every sheet of one ``read_sheets`` call."""

    def __init__(self, limits: SheetLimits):
        self.limits = limits
        self.cells = 0

    def spend(self, cells: int, where: str) -> None:
        self.cells += cells
        if self.cells > self.limits.max_cells:
            raise SheetReadError(
                f"{where}: the spreadsheets hold more than {self.limits.max_cells:,} cells (rows x columns); "
                "split them, or delete what is not part of the study."
            )


def _trimmed(raw: Sequence[object]) -> list[str | None]:
    """A row's cells as text, without the empty ones at its end."""
    cells = [cell_text(v) for v in raw]
    while cells and cells[-1] is None:
        cells.pop()
    return cells


def _real_rows(
    raw_rows: Iterable[Sequence[object]], where: str, limits: SheetLimits
) -> Iterator[tuple[int, list[str | None]]]:
    """(line, cells) for the rows that hold a value; empty rows cost nothing kept. A value beyond the row or
    column limit is refused."""
    for line, raw in enumerate(raw_rows, start=1):
        if line > SHEET_MAX_ROWS:
            raise SheetReadError(f"{where} has rows beyond row {SHEET_MAX_ROWS:,}; it is not a valid spreadsheet.")
        if not raw:
            continue
        cells = _trimmed(raw)
        if not cells:
            continue
        if line > limits.max_rows:
            raise SheetReadError(
                f"{where} has a value in row {line:,}, beyond the {limits.max_rows:,} rows read; "
                "delete the rows below the data."
            )
        if len(cells) > limits.max_columns:
            raise SheetReadError(
                f"{where}, line {line} has a value in column {_column_letter(min(len(cells), 18278))}, "
                f"beyond the {limits.max_columns:,} columns read; delete the columns to the right of the data."
            )
        yield line, cells


def _column_letter(index: int) -> str:
    from openpyxl.utils import get_column_letter  # openpyxl (and numpy) only once a sheet is read

    return get_column_letter(index)


def _table(
    source: str, name: str, raw_rows: Iterable[Sequence[object]], limits: SheetLimits, budget: _CellBudget
) -> Sheet:
    """Build a Sheet from raw rows: first non-empty row is the header; empty rows and columns go."""
    where = f"{source}, sheet '{name}'"
    rows = _real_rows(raw_rows, where, limits)
    first = next(rows, None)
    if first is None:
        return Sheet(name=name, source=source, headers=[])
    _, header = first
    body: list[tuple[int, list[str | None]]] = []
    width = len(header)
    budget.spend(width, where)
    for line, cells in rows:
        body.append((line, cells))
        width = max(width, len(cells))
        budget.spend(len(cells), where)
    budget.spend(len(body) * width - sum(len(cells) for _, cells in body), where)  # rows are padded to the width
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
        key = normalise_header(written) or f"column {_column_letter(i + 1).lower()}"
        if key in columns:  # a repeated header keeps its data under a distinct key
            key = f"{key} ({_column_letter(i + 1).lower()})"
        keys.append(key)
        columns[key] = written
        headers.append(written)
    sheet = Sheet(name=name, source=source, headers=headers, columns=columns)
    for line, cells in body:
        values = {key: (cells[i] if i < len(cells) else None) for key, i in zip(keys, used, strict=True)}
        if any(v is not None for v in values.values()):
            sheet.rows.append(SheetRow(line=line, values=values))
    return sheet


# What a hostile workbook raises while it is parsed: XML entity expansion (refused by defusedxml, or by
# expat's own amplification limit), broken XML, a damaged or lying zip.
# (openpyxl's InvalidFileException is added where workbooks are read: openpyxl is imported there only.)
_XLSX_ERRORS = (
    ParseError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    KeyError,
    OSError,
    ValueError,
)


def _declares_entities(exc: BaseException | None) -> bool:
    """defusedxml refuses entity declarations; expat refuses their amplification (maybe wrapped by openpyxl)."""
    while exc is not None:
        if type(exc).__module__.startswith("defusedxml") or "entit" in str(exc).lower():
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _xlsx_problem(name: str, exc: Exception) -> SheetReadError:
    if _declares_entities(exc):
        return SheetReadError(
            f"{name} declares XML entities (a trick to make a small file expand or read other files); "
            "it is not a workbook a spreadsheet program saves. Open it and save it again as .xlsx."
        )
    return SheetReadError(f"{name} is not a readable .xlsx workbook ({exc}); save it again as .xlsx.")


def _read_xlsx(
    path: Path, name: str, sheet_names: Sequence[str] | None, limits: SheetLimits, budget: _CellBudget
) -> Iterator[Sheet]:
    # Imported here: openpyxl loads numpy, which a web worker serving raters never needs otherwise.
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    errors = (*_XLSX_ERRORS, InvalidFileException)
    try:
        with zipfile.ZipFile(path) as archive:
            archive_check(archive, _archive_limits(limits), name=name)
        workbook = load_workbook(path, read_only=True, data_only=True)
    except ArchiveTooLarge as exc:
        raise SheetReadError(f"{exc} Save the workbook without what is not part of the study.") from exc
    except errors as exc:
        raise _xlsx_problem(name, exc) from exc
    try:
        titles = workbook.sheetnames
        for wanted in sheet_names or ():
            if wanted not in titles:
                raise SheetReadError(f"{name} has no sheet '{wanted}'; its sheets are: {', '.join(titles)}.")
        for title in titles:
            if sheet_names is None or title in sheet_names:
                try:
                    worksheet = workbook[title]
                    # The declared <dimension> is not trusted: read the real cells only, rows not padded to it.
                    worksheet.reset_dimensions()
                    yield _table(name, title, worksheet.iter_rows(values_only=True), limits, budget)
                except SheetReadError:
                    raise
                except errors as exc:
                    raise _xlsx_problem(name, exc) from exc
    finally:
        workbook.close()


def _archive_limits(limits: SheetLimits) -> ArchiveLimits:
    return ArchiveLimits(
        max_total_bytes=limits.max_uncompressed_bytes,
        max_entry_bytes=limits.max_uncompressed_bytes,
        max_entries=limits.max_entries,
    )


def _read_csv(path: Path, name: str, limits: SheetLimits, budget: _CellBudget) -> Sheet:
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            sample = handle.read(CSV_SNIFF_BYTES)
            try:
                dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
            except csv.Error:
                dialect = csv.excel  # one column, or nothing to sniff: plain commas
            handle.seek(0)
            # The sheet is named after the file as people named it ("rater1.csv" is the sheet "rater1").
            return _table(name, name.rsplit(".", 1)[0], csv.reader(handle, dialect), limits, budget)
    except UnicodeDecodeError as exc:
        raise SheetReadError(f"{name} is not UTF-8 text; export it again as CSV UTF-8.") from exc
    except csv.Error as exc:
        raise SheetReadError(f"{name} is not a readable CSV file ({exc}); export it again as CSV.") from exc


def read_sheets(
    path_or_paths: str | Path | Iterable[str | Path],
    *,
    sheet_names: Sequence[str] | None = None,
    limits: SheetLimits | None = None,
    display_names: Mapping[str, str] | None = None,
) -> dict[str, Sheet]:
    """Read .xlsx workbooks and .csv files into ``{key: Sheet}``, in file then sheet order.

    ``sheet_names`` restricts which worksheets are read (an absent one is an error; a CSV file is always read).
    Keys are sheet names; when two files hold sheets of the same name, every key becomes
    "<file name>:<sheet name>" so none is lost. ``limits`` bounds what is read (``SheetLimits`` defaults).
    ``display_names`` maps ``str(path)`` to the file's name as people know it (an upload is stored under
    another name): used for sources, messages and a CSV file's sheet name.
    """
    limits = limits or SheetLimits()
    budget = _CellBudget(limits)
    paths = [Path(path_or_paths)] if isinstance(path_or_paths, str | Path) else [Path(p) for p in path_or_paths]
    sheets: list[Sheet] = []
    for path in paths:
        name = (display_names or {}).get(str(path), path.name)
        if not path.is_file():
            raise SheetReadError(f"{name}: no such file.")
        suffix = path.suffix.lower()
        if suffix == ".xlsx":
            sheets.extend(_read_xlsx(path, name, sheet_names, limits, budget))
        elif suffix == ".csv":
            sheets.append(_read_csv(path, name, limits, budget))
        else:
            raise SheetReadError(f"{name}: only .xlsx and .csv files can be read; save it in one of these.")
    names = [sheet.name for sheet in sheets]
    if len(set(names)) == len(names):
        return {sheet.name: sheet for sheet in sheets}
    return {f"{sheet.source}:{sheet.name}": sheet for sheet in sheets}
