"""Formula-injection protection and constant-memory streaming of CSV."""

import csv
import io
import tracemalloc
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.exports.safe_csv import FORMULA_TRIGGERS, csv_rows, is_formula_like, is_plain_number, safe_cell

HOSTILE = [
    "=1+1",
    "+cmd",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    "\n=1",
    "  =1",
    " \t +1",
    '=HYPERLINK("http://x")',
    "=cmd|' /C calc'!A0",
    "＝1",
    "＋1",
    "－1",
    "＠SUM(A1)",
    "﹦1",
    "\u3000=1",  # ideographic space
    "\u200b=1",  # zero-width space
    "-",
    "-inf",
    "+-3",
    "- item in a list",
    " -3",
]
NUMBERS = ["-3", "-0.5", "1e5", "+3", "-1e-5", "-.5", "0", "12.", "-2E+10"]


def read_back(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("cell", HOSTILE)
def test_a_cell_a_spreadsheet_could_run_gets_a_leading_quote(cell):
    assert safe_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell", NUMBERS)
def test_a_plain_number_stays_a_number(cell):
    assert safe_cell(cell) == cell


@pytest.mark.parametrize("cell", ["hello", "", "'=already quoted", "a=b", "1+1", "x-y", "DeepSpeed #123"])
def test_harmless_text_is_left_alone(cell):
    assert safe_cell(cell) == cell


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (-3, "-3"),
        (-0.5, "-0.5"),
        (Decimal("-1.50"), "-1.50"),
        (True, "true"),
        (False, "false"),
        (date(2025, 1, 2), "2025-01-02"),
        (datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC), "2025-01-02T03:04:05+00:00"),
        (float("-inf"), "'-inf"),  # not a plain number, and a spreadsheet would read it as a formula
    ],
)
def test_non_text_values_are_written_as_text(value, text):
    assert safe_cell(value) == text


def test_an_object_whose_text_is_a_formula_is_escaped():
    class Sneaky:
        def __str__(self):
            return "=EVIL()"

    assert safe_cell(Sneaky()) == "'=EVIL()"


def test_hostile_cells_survive_a_round_trip_through_csv_reader():
    text = "".join(csv_rows(["cell"], [[cell] for cell in HOSTILE + NUMBERS]))
    rows = read_back(text)
    assert rows[0] == ["cell"]
    assert [row[0] for row in rows[1:]] == ["'" + cell for cell in HOSTILE] + NUMBERS


def test_each_yielded_chunk_is_exactly_one_record_with_crlf_and_rfc4180_quoting():
    lines = list(csv_rows(["a", "b"], [[1, 'say "hi"'], ["two\nlines", "x,y"]]))
    assert lines == ["a,b\r\n", '1,"say ""hi"""\r\n', '"two\nlines","x,y"\r\n']


def test_the_header_is_escaped_too():
    assert next(csv_rows(["=evil", "ok"], [])) == "'=evil,ok\r\n"


def test_bom_only_on_the_first_line():
    lines = list(csv_rows(["a"], [[1], [2]], bom=True))
    assert lines[0] == "\ufeffa\r\n"
    assert not any(line.startswith("\ufeff") for line in lines[1:])
    assert "".join(lines).encode("utf-8").startswith(b"\xef\xbb\xbf")


def test_bom_without_header_goes_on_the_first_row():
    assert list(csv_rows(None, [[1]], bom=True)) == ["\ufeff1\r\n"]


def test_bom_on_an_empty_export_still_marks_the_file():
    assert list(csv_rows(None, [], bom=True)) == ["\ufeff"]
    assert list(csv_rows(None, [])) == []


def test_semicolon_delimiter_for_decimal_comma_locales():
    assert list(csv_rows(["a", "b"], [["1,5", "x;y"]], delimiter=";")) == ["a;b\r\n", '1,5;"x;y"\r\n']


def test_rows_are_consumed_lazily():
    consumed = []

    def rows():
        for number in range(3):
            consumed.append(number)
            yield [number]

    stream = csv_rows(["n"], rows())
    assert consumed == []
    next(stream)  # the header
    assert consumed == []
    next(stream)
    assert consumed == [0]


def test_a_million_rows_stream_in_constant_memory():
    def rows():
        for number in range(1_000_000):
            yield [number, f"issue {number}", "=1+1", -0.5]

    tracemalloc.start()
    try:
        count = 0
        size = 0
        for line in csv_rows(["n", "title", "formula", "x"], rows(), bom=True):
            count += 1
            size += len(line)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 1_000_001
    assert size > 30_000_000  # what the whole file would have taken in memory
    assert peak < 2_000_000, f"peak {peak} bytes: the rows are being held in memory"


# The property behind the table: an escaped cell never starts (after blanks) with a trigger, unless it is a
# plain number, and reading it back and dropping the added quote gives the original text.
_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30)
_hostile = st.builds(
    lambda blanks, trigger, rest: blanks + trigger + rest,
    st.sampled_from(["", " ", "  ", "\u3000"]),
    st.sampled_from(sorted(FORMULA_TRIGGERS)),
    _text,
)


def _first_visible(text: str) -> str:
    stripped = text.lstrip().lstrip("\u200b\u200c\u200d\u2060\ufeff")
    return stripped[:1]


@given(st.one_of(_text, _hostile))
def test_property_safe_cell_never_starts_with_a_formula_trigger(text):
    cell = safe_cell(text)
    if is_plain_number(cell):
        assert cell == text
        return
    assert cell[:1] not in FORMULA_TRIGGERS
    if cell[:1].isspace() or cell[:1] in "\u200b\u200c\u200d\u2060\ufeff":
        assert _first_visible(cell) not in FORMULA_TRIGGERS


@given(st.lists(st.lists(st.one_of(_text, _hostile), min_size=1, max_size=4), max_size=5))
def test_property_csv_round_trip_preserves_the_text(rows):
    width = max((len(row) for row in rows), default=1)
    rows = [row + [""] * (width - len(row)) for row in rows]
    read = read_back("".join(csv_rows(None, rows)))
    # csv.reader reads a row of one empty cell back as an empty row; every other row comes back whole.
    read = [row if row else [""] for row in read]
    assert len(read) == len(rows)
    for original, got in zip(rows, read, strict=True):
        restored = [cell[1:] if is_formula_like(text) else cell for text, cell in zip(original, got, strict=True)]
        assert restored == original
