"""Reading rater spreadsheets into Sheets: xlsx and csv, headers, empty rows and columns (pure; no database)."""

import datetime as dt
import re

import pytest
from openpyxl import Workbook

from annotator.importers.sheets import SheetReadError, cell_text, find_column, normalise_header, read_sheets


def write_xlsx(path, sheets: dict[str, list[list]]):
    workbook = Workbook()
    workbook.remove(workbook.active)
    for title, rows in sheets.items():
        worksheet = workbook.create_sheet(title)
        for row in rows:
            worksheet.append(row)
    workbook.save(path)
    return path


HEADER = ["Link", "Issue Type ", "Stage", None, None]


def test_xlsx_rows_keyed_by_normalised_header_without_empty_rows_or_columns(tmp_path):
    path = write_xlsx(
        tmp_path / "round.xlsx",
        {
            "label1": [
                HEADER,
                ["https://x/1", "fault", "Communication setup", None, None],
                [None, None, None, None, None],
                ["https://x/2", "how-to question", None, None, None],
            ]
        },
    )
    sheet = read_sheets(path)["label1"]
    assert (sheet.name, sheet.source) == ("label1", "round.xlsx")
    assert sheet.headers == ["Link", "Issue Type ", "Stage"]
    assert [row.line for row in sheet.rows] == [2, 4]  # the line a person sees, the empty row 3 skipped
    assert sheet.rows[0].values == {"link": "https://x/1", "issue type": "fault", "stage": "Communication setup"}
    assert sheet.rows[1].values["stage"] is None


def test_unnamed_column_with_data_is_kept_and_repeated_header_is_kept_apart(tmp_path):
    path = write_xlsx(tmp_path / "a.xlsx", {"s": [["Link", "Memo", None, "memo"], ["k", "a", "stray", "b"]]})
    sheet = read_sheets(path)["s"]
    assert sheet.rows[0].values == {"link": "k", "memo": "a", "column c": "stray", "memo (d)": "b"}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, None),
        (1.0, "1"),
        (0, "0"),
        (2.5, "2.5"),
        (True, "TRUE"),
        ("  ", None),
        (" kept as written ", " kept as written "),
        (dt.date(2023, 1, 2), "2023-01-02"),
    ],
)
def test_cell_text(value, text):
    assert cell_text(value) == text


def test_numbers_read_without_decimal_point(tmp_path):
    path = write_xlsx(tmp_path / "n.xlsx", {"s": [["Link", "Distributed-specified"], ["k", 1.0], ["j", 0]]})
    assert [row.values["distributed specified"] for row in read_sheets(path)["s"].rows] == ["1", "0"]


def test_sheet_names_restrict_and_an_absent_sheet_is_named(tmp_path):
    path = write_xlsx(tmp_path / "r.xlsx", {"label1": [["Link"], ["a"]], "label2": [["Link"], ["b"]]})
    assert list(read_sheets(path, sheet_names=["label2"])) == ["label2"]
    with pytest.raises(SheetReadError, match=re.escape("r.xlsx has no sheet 'Final'; its sheets are: label1, label2")):
        read_sheets(path, sheet_names=["Final"])


def test_same_sheet_name_in_two_files_qualifies_every_key(tmp_path):
    first = write_xlsx(tmp_path / "r1.xlsx", {"label1": [["Link"], ["a"]]})
    second = write_xlsx(tmp_path / "r2.xlsx", {"label1": [["Link"], ["b"]], "other": [["Link"], ["c"]]})
    assert list(read_sheets([first, second])) == ["r1.xlsx:label1", "r2.xlsx:label1", "r2.xlsx:other"]


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_csv_with_bom_and_any_common_delimiter(tmp_path, delimiter):
    path = tmp_path / "rater_a.csv"
    lines = ["Link,Stage,Leaf Category", "https://x/1,Training & Evaluation,hang", ",,", "https://x/2,,PENDING"]
    path.write_text("\ufeff" + "\n".join(line.replace(",", delimiter) for line in lines) + "\n", encoding="utf-8")
    sheet = read_sheets(path)["rater_a"]
    assert (sheet.name, sheet.source, sheet.headers) == ("rater_a", "rater_a.csv", ["Link", "Stage", "Leaf Category"])
    assert [row.line for row in sheet.rows] == [2, 4]
    assert sheet.rows[0].values == {"link": "https://x/1", "stage": "Training & Evaluation", "leaf category": "hang"}
    assert sheet.rows[1].values["stage"] is None


def test_csv_that_is_not_utf8_says_how_to_fix_it(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("Link,Stage\nk,d\xe9ploiement\n".encode("latin-1"))
    with pytest.raises(SheetReadError, match=re.escape("latin.csv is not UTF-8 text; export it again as CSV UTF-8")):
        read_sheets(path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("labels.ods", b"x", "only .xlsx and .csv files can be read"),
        ("broken.xlsx", b"not a zip", "broken.xlsx is not a readable .xlsx workbook"),
    ],
)
def test_unreadable_files_are_named(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SheetReadError, match=re.escape(message)):
        read_sheets(path)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(SheetReadError, match=re.escape("nothere.csv: no such file")):
        read_sheets(tmp_path / "nothere.csv")


@pytest.mark.parametrize(
    ("header", "key"),
    [("Issue Type ", "issue type"), ("How-to sub-topic", "how to sub topic"), ("LEAF_category", "leaf category")],
)
def test_normalise_header(header, key):
    assert normalise_header(header) == key


@pytest.mark.parametrize(
    ("wanted", "found"),
    [
        ("Issue Type", "issue type"),  # the header has a trailing space
        ("issue type final", "issue type"),
        ("Stage", "stage final"),  # the after-discussion sheet's suffix
        ("Distributed-specific", "distributed specified final"),  # a typo
        ("Leaf category", "leaf category final"),
        ("Root cause", None),
        ("", None),
    ],
)
def test_find_column_tolerates_case_spacing_final_suffix_and_typos(tmp_path, wanted, found):
    headers = ["Link", "Issue Type ", "Stage Final", "Distributed-specified Final", "Leaf Category Final", "Type"]
    path = write_xlsx(tmp_path / "f.xlsx", {"Final": [headers, ["k"] * len(headers)]})
    assert find_column(read_sheets(path)["Final"], wanted) == found


def test_find_column_refuses_an_ambiguous_typo(tmp_path):
    path = write_xlsx(tmp_path / "f.xlsx", {"s": [["stagea", "stageb"], ["x", "y"]]})
    assert find_column(read_sheets(path)["s"], "stage") is None
