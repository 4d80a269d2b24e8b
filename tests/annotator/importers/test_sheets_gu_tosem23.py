"""The real two-rater study of Liu, Gu et al. (TOSEM 2023): its five reliability rounds, pilot and final data.

The figures pinned here are the ones in docs/label-cleaning.md; if a rule changes, both change together.
"""

import functools
import math

import pytest

from annotator.agreement import cohen_kappa
from annotator.importers.label_cleaning import mapping_from_suggestions, suggest_merges
from annotator.importers.sheets import (
    apply_mapping,
    extract_ratings,
    find_column,
    labels_outside,
    level_matrices,
    read_sheets,
)
from tests.data import GU_TOSEM23

COLUMNS = {
    "issue_type": "Issue Type",
    "how_to_topic": "How-to topic",
    "how_to_subtopic": "How-to sub-topic",
    "distributed_specific": "Distributed-specific",
    "stage": "Stage",
    "inner_category": "Type",
    "leaf_symptom": "Leaf Category",
    "fix_pattern": "Fix Pattern",
}
ROUNDS = (1, 2, 3, 4, 5)
PINNED_DIMENSIONS = ("issue_type", "stage", "inner_category", "leaf_symptom", "fix_pattern")


@functools.cache  # each workbook is read once per test session; tests never change a table
def read_round(number: int):
    sheets = read_sheets(GU_TOSEM23 / f"reliability_round{number}.xlsx")
    return sheets, extract_ratings(sheets, key="Link", raters=["label1", "label2"], final="Final", mapping=COLUMNS)


def suggestions(table) -> dict[str, list]:
    return {dimension: suggest_merges(table.label_counts(dimension)) for dimension in COLUMNS}


def cleaned(table):
    """The table after accepting every merge suggestion (all are real typos; see the docs)."""
    mapping = {}
    for dimension, found in suggestions(table).items():
        mapping.update(mapping_from_suggestions(found, dimension))
    return apply_mapping(table, mapping)


# round: (rows in label1, label2, Final), items, rows skipped for having no Link
ROWS = {
    1: ((111, 110, 111), 108, 5),
    2: ((113, 113, 115), 110, 15),
    3: ((116, 116, 122), 108, 30),
    4: ((109, 109, 109), 108, 3),
    5: ((105, 105, 106), 99, 19),
}


@pytest.mark.parametrize("number", ROUNDS)
def test_each_round_reads_with_its_three_sheets(number):
    sheets, table = read_round(number)
    rows, items, without_link = ROWS[number]
    assert list(sheets) == ["label1", "label2", "Final"]
    assert tuple(len(sheets[name].rows) for name in sheets) == rows
    assert len(table.items) == items
    assert sum(p.message.startswith("no Link") for p in table.problems) == without_link


# round: items both raters labelled, after cleaning, per PINNED_DIMENSIONS
BOTH_LABELLED = {
    1: (108, 52, 18, 45, 42),
    2: (108, 56, 37, 52, 40),
    3: (108, 58, 36, 48, 51),
    4: (104, 61, 38, 55, 35),
    5: (99, 52, 29, 48, 46),
}


@pytest.mark.parametrize("number", ROUNDS)
def test_items_both_raters_labelled_per_dimension(number):
    _, table = read_round(number)
    table = cleaned(table)
    assert tuple(table.labelled_by_all(d) for d in PINNED_DIMENSIONS) == BOTH_LABELLED[number]


SUGGESTED = {
    1: {
        ("inner_category", "program failures", "program failure"),
        ("fix_pattern", "fix behvior logic", "fix behavior logic"),
        ("fix_pattern", "fix communication coonfiguration", "fix communication configuration"),
        ("fix_pattern", "fix netowrk setting", "fix network setting"),
        ("fix_pattern", "fx communication configuration", "fix communication configuration"),
    },
    2: {
        ("inner_category", "program failures", "program failure"),
        ("leaf_symptom", "checkpoint nonfunctioning", "checkpoint unfunctioning"),
        ("leaf_symptom", "pening", None),
        ("leaf_symptom", "tensosr mismatch", "tensor mismatch"),
        ("fix_pattern", "pedning", None),
    },
    3: {("inner_category", "program failures", "program failure")},
    4: {
        ("how_to_topic", "device usgae", "device usage"),
        ("inner_category", "program failures", "program failure"),
        ("leaf_symptom", "invalid ragument", "invalid argument"),
    },
    5: {("how_to_subtopic", "communitive operation", "communitive operator")},
}


@pytest.mark.parametrize("number", ROUNDS)
def test_merge_suggestions_are_the_real_typos(number):
    _, table = read_round(number)
    found = {(d, s.from_label, s.to_label) for d, items in suggestions(table).items() for s in items}
    assert found == SUGGESTED[number]


def test_netowrk_typo_is_suggested_into_the_frequent_spelling():
    _, table = read_round(1)
    fix = {s.from_label: s for s in suggest_merges(table.label_counts("fix_pattern"))}
    assert fix["fix netowrk setting"].to_label == "fix network setting"
    assert fix["fix netowrk setting"].to_count > fix["fix netowrk setting"].from_count


def test_hang_and_timeout_spellings_are_one_label():
    _, table = read_round(1)
    spellings = table.spellings["leaf_symptom"]["hang and timeout"]
    assert {"Hang & Timeout", "hang and timeout"} <= set(spellings)
    assert not any("&" in label for label in table.label_counts("leaf_symptom"))


def test_header_typos_are_tolerated():
    sheets, table = read_round(1)
    assert sheets["label1"].headers[1] == "Issue Type "
    assert find_column(sheets["label1"], "Issue Type") == "issue type"
    assert find_column(sheets["Final"], "Distributed-specific") == "distributed specified final"
    assert not [p for p in table.problems if "no column" in p.message]


def test_pending_and_blank_are_not_labelled():
    _, table = read_round(1)
    for dimension in COLUMNS:
        assert "pending" not in table.label_counts(dimension)
    item = "https://github.com/horovod/horovod/issues/1122"
    assert table.label("label1", item, "how_to_topic") is None  # a fault: the how-to columns are blank


def test_problems_point_at_file_sheet_line_and_column():
    _, table = read_round(1)
    duplicate = next(p for p in table.problems if "also on line" in p.message)
    assert str(duplicate) == (
        "reliability_round1.xlsx, sheet 'label1', line 51, field 'Link': "
        "'https://github.com/horovod/horovod/issues/656' is also on line 50; only that first row counts."
    )


def test_symptom_levels_give_one_matrix_per_level():
    _, table = read_round(2)
    levels = level_matrices(cleaned(table), ["stage", "inner_category", "leaf_symptom"])
    assert [len(levels[level][0]) for level in levels] == [110, 110, 110]
    both = [sum(a is not None and b is not None for a, b in zip(*levels[level], strict=True)) for level in levels]
    assert both == [56, 37, 52]


def test_pilot_and_final_dataset_read_with_their_own_headers():
    pilot = read_sheets(GU_TOSEM23 / "pilot_labelling.xlsx")["pilot"]
    assert len(pilot.rows) == 560
    assert find_column(pilot, "Inner Symptom") == "inner symptom"
    faults = read_sheets(GU_TOSEM23 / "final_categories.xlsx", sheet_names=["faults"])["faults"]
    assert len(faults.rows) == 637
    assert find_column(faults, "inner category") == "inner category"
    assert faults.rows[0].values["distributed specific"] == "1"


# round: Cohen's kappa of label1 vs label2 after cleaning, per PINNED_DIMENSIONS (docs/label-cleaning.md)
KAPPA = {
    1: (0.869, 0.718, 1.000, 0.775, 0.761),
    2: (0.982, 0.932, 0.945, 0.958, 0.863),
    3: (0.944, 0.968, 1.000, 1.000, 0.894),
    4: (0.961, 0.970, 1.000, 0.638, 0.908),
    5: (1.000, 1.000, 1.000, 1.000, 0.975),
}


@pytest.mark.parametrize("number", ROUNDS)
def test_cohen_kappa_per_round_and_dimension(number):
    _, table = read_round(number)
    table = cleaned(table)
    kappas = tuple(cohen_kappa(table.matrix(d)) for d in PINNED_DIMENSIONS)
    assert all(math.isclose(k, pinned, abs_tol=5e-4) for k, pinned in zip(kappas, KAPPA[number], strict=True)), kappas


def test_cleaning_raises_agreement_that_spelling_hid():
    sheets, table = read_round(1)
    # the same items compared on the cells as written (outer spaces stripped): case and '&' count as disagreement
    raw = []
    for rater in ("label1", "label2"):
        column = find_column(sheets[rater], "Stage")
        by_line = {row.line: row.values for row in sheets[rater].rows}
        cells = [by_line[table.rows[i][rater]][column] if rater in table.rows[i] else None for i in table.items]
        raw.append([c.strip() if c and c.strip() else None for c in cells])
    assert cohen_kappa(raw) == pytest.approx(0.365, abs=5e-4)
    assert cohen_kappa(cleaned(table).matrix("stage")) == pytest.approx(0.718, abs=5e-4)


def test_labels_outside_the_final_categories_reveal_the_shifted_rows_of_round_4():
    faults = read_sheets(GU_TOSEM23 / "final_categories.xlsx", sheet_names=["faults"])["faults"]
    inner = find_column(faults, "inner category")
    known = {"inner_category": {row.values[inner] for row in faults.rows if row.values[inner]}}
    _, table = read_round(4)
    outside = labels_outside(cleaned(table), known)["inner_category"]
    # label2 typed 19 rows one column to the left: leaf symptoms sit in the inner-category column
    assert outside == {
        "hang and timeout": 5,
        "import error": 4,
        "installation and build failure": 3,
        "setup failure": 3,
        "structure mismatch": 1,
        "communication error": 1,
        "iteration failure": 1,
        "device error": 1,
    }
