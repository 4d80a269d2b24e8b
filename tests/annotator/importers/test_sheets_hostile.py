"""Hostile spreadsheets (built here): a declared huge range, far cells, XML entity tricks, zip bombs and
oversized CSV rows are read within limits or refused with a clear message, never padded in memory."""

import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from annotator.importers.sheets import SheetLimits, SheetReadError, read_sheets
from tests.annotator.importers.test_sheets_reading import write_xlsx

SHEET = "xl/worksheets/sheet1.xml"
FAR_ROW = '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>far</t></is></c></row>'


def small_workbook(tmp_path: Path) -> dict[str, bytes]:
    path = write_xlsx(tmp_path / "plain.xlsx", {"label1": [["Link", "Cause"], ["https://x/1", "crash"]]})
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def rewritten(tmp_path: Path, name: str, edit) -> Path:
    """The small workbook with its sheet XML edited as an attacker would."""
    entries = small_workbook(tmp_path)
    entries[SHEET] = edit(entries[SHEET].decode()).encode()
    target = tmp_path / name
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    return target


def declared_huge(xml: str, extra_rows: str = "") -> str:
    xml = xml.replace('<dimension ref="A1:B2" />', '<dimension ref="A1:XFD1048576"/>')
    assert 'ref="A1:XFD1048576"' in xml
    return xml.replace("</sheetData>", extra_rows + "</sheetData>")


def _outcome(call):
    try:
        return call()
    except SheetReadError as exc:
        return exc


def measured(call):
    """(result or exception, seconds, peak traced bytes): timed in one run, memory traced in another (tracing
    slows the run down)."""
    started = time.perf_counter()
    _outcome(call)
    seconds = time.perf_counter() - started
    tracemalloc.start()
    try:
        return _outcome(call), seconds, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_declared_huge_range_costs_only_the_real_cells(tmp_path):
    path = rewritten(tmp_path, "declared.xlsx", declared_huge)
    assert path.stat().st_size < 10_000
    sheets, seconds, peak = measured(lambda: read_sheets(path))
    assert [row.values for row in sheets["label1"].rows] == [{"link": "https://x/1", "cause": "crash"}]
    assert peak < 5 << 20 and seconds < 5, (peak, seconds)


def test_one_far_cell_is_refused_fast_without_padding_rows(tmp_path):
    path = rewritten(tmp_path, "far.xlsx", lambda xml: declared_huge(xml, FAR_ROW))
    assert path.stat().st_size < 10_000
    error, seconds, peak = measured(lambda: read_sheets(path))
    assert isinstance(error, SheetReadError)
    assert "far.xlsx, sheet 'label1' has a value in row 1,048,576, beyond the 100,000 rows read" in str(error)
    assert peak < 10 << 20 and seconds < 10, (peak, seconds)


def test_a_value_far_right_is_refused_with_the_column_limit(tmp_path):
    far_right = '<row r="3"><c r="XFD3" t="inlineStr"><is><t>x</t></is></c></row>'
    path = rewritten(tmp_path, "right.xlsx", lambda xml: declared_huge(xml, far_right))
    error, seconds, peak = measured(lambda: read_sheets(path))
    assert "right.xlsx, sheet 'label1', line 3 has a value in column XFD, beyond the 1,000 columns" in str(error)
    assert peak < 10 << 20 and seconds < 5, (peak, seconds)


def test_a_value_far_down_is_refused_with_the_row_limit(tmp_path):
    far_down = '<row r="500000"><c r="A500000" t="inlineStr"><is><t>x</t></is></c></row>'
    path = rewritten(tmp_path, "down.xlsx", lambda xml: declared_huge(xml, far_down))
    error, seconds, peak = measured(lambda: read_sheets(path))
    assert "has a value in row 500,000, beyond the 100,000 rows read" in str(error)
    assert peak < 10 << 20 and seconds < 10, (peak, seconds)


def test_rows_times_columns_are_capped(tmp_path):
    rows = [[f"h{c}" for c in range(20)]] + [[f"r{r}c{c}" for c in range(20)] for r in range(60)]
    path = write_xlsx(tmp_path / "wide.xlsx", {"label1": rows})
    with pytest.raises(SheetReadError, match=r"more than 1,000 cells \(rows x columns\)"):
        read_sheets(path, limits=SheetLimits(max_cells=1000))
    assert len(read_sheets(path, limits=SheetLimits(max_cells=2000))["label1"].rows) == 60


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">' for i in range(1, 10))
    + "]>"
)
XXE = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'


@pytest.mark.parametrize(("doctype", "entity"), [(BILLION_LAUGHS, "&lol9;"), (XXE, "&xxe;")])
def test_xml_entity_tricks_give_a_clear_message(tmp_path, doctype, entity):
    def attack(xml: str) -> str:
        body = xml.split("?>", 1)[1] if xml.startswith("<?xml") else xml
        return doctype + body.replace("<t>crash</t>", f"<t>{entity}</t>")

    path = rewritten(tmp_path, "entities.xlsx", attack)
    error, seconds, peak = measured(lambda: read_sheets(path))
    assert isinstance(error, SheetReadError), error
    assert "entities.xlsx declares XML entities" in str(error)
    assert "root:" not in str(error)
    assert peak < 10 << 20 and seconds < 5, (peak, seconds)


def test_a_workbook_that_expands_hugely_is_refused_before_parsing(tmp_path):
    padding = "<!-- " + " " * (64 << 20) + " -->"
    path = rewritten(tmp_path, "bomb.xlsx", lambda xml: xml.replace("<sheetData>", padding + "<sheetData>"))
    assert path.stat().st_size < 1 << 20
    limits = SheetLimits(max_uncompressed_bytes=16 << 20)
    error, seconds, peak = measured(lambda: read_sheets(path, limits=limits))
    assert "bomb.xlsx: xl/worksheets/sheet1.xml expands to 64.0 MiB; at most 16.0 MiB per file is read" in str(error)
    assert peak < 4 << 20 and seconds < 2, (peak, seconds)


def test_a_csv_row_beyond_the_column_limit_is_refused(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("Link,Cause\n" + "x," * 5000 + "y\n", encoding="utf-8")
    with pytest.raises(SheetReadError, match=r"wide.csv, sheet 'wide', line 2 has a value in column GJI"):
        read_sheets(path)
