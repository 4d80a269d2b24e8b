"""Matching rater sheets into a RatingTable; problems, mappings, taxonomy checks, levels (pure; no database)."""

import re

import pytest

from annotator.importers.sheets import (
    SheetReadError,
    apply_mapping,
    extract_ratings,
    labels_outside,
    level_matrices,
    normalise_key,
    read_sheets,
)

MAPPING = {"stage": "Stage", "inner": "Type", "leaf": "Leaf Category", "fix": "Fix Pattern"}


def write_csv(path, rows: list[str]):
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def two_raters(tmp_path):
    header = "Link,Stage,Type,Leaf Category,Fix Pattern"
    a = write_csv(
        tmp_path / "rater_a.csv",
        [
            header,
            "https://github.com/o/r/issues/1,Communication setup,,Hang & Timeout,fix network setting",
            "http://GitHub.com/o/r/issues/2/,training & evaluation,program failure,hang,PENDING",
            ",training & evaluation,,hang,x",
            "https://github.com/o/r/issues/3,package build & import,,import error,fix dependency path",
            "https://github.com/o/r/issues/3,package build & import,,other,fix dependency path",
        ],
    )
    b = write_csv(
        tmp_path / "rater_b.csv",
        [
            header,
            "https://github.com/o/r/issues/1,communication setup,,hang and timeout,fix netowrk setting",
            "https://github.com/o/r/issues/2,Training & Evaluation,Program Failure,hang,",
            "https://github.com/o/r/issues/4,  ,,  ,",
        ],
    )
    final = write_csv(
        tmp_path / "final.csv",
        [
            "Link,Stage Final,Type Final,Leaf Category Final",
            "https://github.com/o/r/issues/1,communication setup,,hang and timeout",
        ],
    )
    sheets = read_sheets([a, b, final])
    return extract_ratings(sheets, key="Link", raters=["rater_a", "rater_b"], final="final", mapping=MAPPING)


I1, I2, I3, I4 = (f"https://github.com/o/r/issues/{n}" for n in range(1, 5))


@pytest.mark.parametrize(
    ("written", "key"),
    [
        (" http://GitHub.com/o/r/issues/2/ ", I2),
        ("https://github.com/o/r/issues/2#issuecomment-9", I2),
        ("https://stackoverflow.com/questions/5?x=1", "https://stackoverflow.com/questions/5?x=1"),
        ("ISSUE-7 ", "ISSUE-7"),
        ("   ", None),
        (None, None),
    ],
)
def test_normalise_key(written, key):
    assert normalise_key(written) == key


def test_rows_are_matched_on_the_normalised_link(two_raters):
    assert two_raters.items == (I1, I2, I3, I4)
    assert two_raters.label("rater_a", I2, "stage") == two_raters.label("rater_b", I2, "stage")


def test_labels_are_normalised_and_missing_markers_are_none(two_raters):
    assert two_raters.label("rater_a", I1, "leaf") == "hang and timeout"
    assert two_raters.label("rater_b", I1, "leaf") == "hang and timeout"
    assert two_raters.label("rater_a", I2, "fix") is None  # PENDING
    assert two_raters.label("rater_b", I2, "fix") is None  # blank
    assert two_raters.label("rater_b", I4, "stage") is None  # spaces only
    assert two_raters.label("final", I1, "stage") == "communication setup"


def test_matrix_is_rater_rows_over_items(two_raters):
    assert two_raters.matrix("stage") == [
        ["communication setup", "training and evaluation", "package build and import", None],
        ["communication setup", "training and evaluation", None, None],
    ]
    assert two_raters.matrix("leaf", with_final=True)[2] == ["hang and timeout", None, None, None]
    assert two_raters.labelled_by_all("stage") == 2
    assert two_raters.labelled_by_all("fix") == 1


def test_every_original_spelling_is_counted_and_the_commonest_is_shown(two_raters):
    assert dict(two_raters.spellings["stage"]["communication setup"]) == {
        "Communication setup": 1,
        "communication setup": 2,
    }
    assert two_raters.display("stage", "communication setup") == "communication setup"
    assert two_raters.display("leaf", "hang and timeout") == "hang and timeout"
    assert two_raters.label_counts("leaf") == {"hang and timeout": 3, "hang": 2, "import error": 1}


def test_problems_name_file_sheet_line_and_column(two_raters):
    problems = [str(p) for p in two_raters.problems]
    assert problems == [
        "rater_a.csv, sheet 'rater_a', line 4, field 'Link': no Link; the row cannot be matched and is skipped.",
        f"rater_a.csv, sheet 'rater_a', line 6, field 'Link': '{I3}' is also on line 5; only that first row counts.",
        "final.csv, sheet 'final', field 'Fix Pattern': no column 'Fix Pattern' (headers: Link, Stage Final, "
        "Type Final, Leaf Category Final); 'fix' reads as not labelled here.",
        f"rater_a.csv, sheet 'rater_a', line 3, field 'Link': '{I2}' is not in sheet(s) 'final'; "
        "it cannot be compared there.",
        f"rater_a.csv, sheet 'rater_a', line 5, field 'Link': '{I3}' is not in sheet(s) 'rater_b', 'final'; "
        "it cannot be compared there.",
        f"rater_b.csv, sheet 'rater_b', line 4, field 'Link': '{I4}' is not in sheet(s) 'rater_a', 'final'; "
        "it cannot be compared there.",
    ]
    first = two_raters.problems[0]
    assert (first.source, first.sheet, first.line, first.field) == ("rater_a.csv", "rater_a", 4, "Link")


def test_duplicate_row_keeps_the_first(two_raters):
    assert two_raters.label("rater_a", I3, "leaf") == "import error"


def test_a_sheet_without_the_key_column_is_skipped_with_a_problem(tmp_path):
    a = write_csv(tmp_path / "a.csv", ["URL,Stage", "k,x"])
    b = write_csv(tmp_path / "b.csv", ["Link,Stage", "k,x"])
    table = extract_ratings(read_sheets([a, b]), key="Link", raters=["a", "b"], mapping={"stage": "Stage"})
    assert table.ratings["a"] == {}
    assert (
        str(table.problems[0])
        == "a.csv, sheet 'a', field 'Link': no column 'Link' to match rows on; the sheet is skipped."
    )


def test_an_unknown_sheet_name_is_an_error(two_raters, tmp_path):
    sheets = read_sheets(write_csv(tmp_path / "a.csv", ["Link", "k"]))
    with pytest.raises(SheetReadError, match=re.escape("There is no sheet 'label2'; the sheets read are: a.")):
        extract_ratings(sheets, key="Link", raters=["a", "label2"], mapping={})


def test_apply_mapping_returns_a_new_cleaned_table(two_raters):
    mapping = {("fix", "fix netowrk setting"): "fix network setting", (None, "hang"): None}
    cleaned = apply_mapping(two_raters, mapping)
    assert cleaned.matrix("fix") == [
        ["fix network setting", None, "fix dependency path", None],
        ["fix network setting", None, None, None],
    ]
    assert cleaned.label("rater_a", I2, "leaf") is None
    assert dict(cleaned.spellings["fix"]["fix network setting"]) == {
        "fix network setting": 1,
        "fix netowrk setting": 1,
    }
    assert "hang" not in cleaned.spellings["leaf"]
    assert cleaned.problems == two_raters.problems
    # the original is untouched: an import can be repeated from it
    assert two_raters.label("rater_b", I1, "fix") == "fix netowrk setting"
    assert two_raters.label("rater_a", I2, "leaf") == "hang"


def test_labels_outside_the_taxonomy_are_counted(two_raters):
    known = {"leaf": {"Hang & Timeout", "Import error"}, "stage": set(), "root_cause": {"x"}}
    outside = labels_outside(two_raters, known)
    assert outside["leaf"] == {"hang": 2}
    assert outside["stage"]["communication setup"] == 3
    assert "root_cause" not in outside


def test_level_matrices_give_the_column_value_or_the_path(two_raters):
    levels = ["stage", "inner", "leaf"]
    plain = level_matrices(two_raters, levels)
    assert plain["inner"] == two_raters.matrix("inner")
    paths = level_matrices(two_raters, levels, paths=True)
    assert paths["inner"][0][:2] == [None, ("training and evaluation", "program failure")]
    assert paths["leaf"][0][0] == ("communication setup", None, "hang and timeout")
