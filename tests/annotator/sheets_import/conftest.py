"""Fixtures for importing spreadsheet studies: the Gu et al. data and small CSV studies (the tiny taxonomy
`bugs_taxonomy` and `rater_csvs`: tests/annotator/conftest.py)."""

from pathlib import Path

import pytest
from django.core.management import call_command

from tests.annotator.sheets_import.csv_files import HEADER, LINK, write_csv
from tests.data import GU_TOSEM23

GU_MAPS = (
    "issue_type=Issue Type",
    "stage=Stage",
    "symptom=Stage>Type>Leaf Category",
    "fix_pattern=Fix Pattern",
)


def gu_round(number: int) -> Path:
    return GU_TOSEM23 / f"reliability_round{number}.xlsx"


def run_import(*args: str, **options):
    """call_command("import_sheets", ...) without a progress bar; returns (stdout, stderr)."""
    from io import StringIO

    out, err = StringIO(), StringIO()
    call_command("import_sheets", *args, "--no-progress", stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def import_gu_round(number: int, *extra: str):
    maps = [arg for text in GU_MAPS for arg in ("--map", text)]
    return run_import(
        str(gu_round(number)),
        "--study",
        "Gu et al. reliability",
        "--raters",
        "label1,label2",
        "--final",
        "Final",
        "--key",
        "Link",
        *maps,
        "--taxonomy",
        "gu-tosem23",
        "--accept-suggestions",
        "--add-unknown-labels",
        *extra,
    )


# Two raters over six issues of the bugs taxonomy, issue: (rater A's cause, fix; rater B's cause, fix).
# 1-3 agree (3: the same set in another order), 4 differs in cause, 5 in fix, 6 in both.
LABELS = {
    1: ("crash", "fix code", "Crash", "fix code"),
    2: ("hang", "fix config", "freeze", "fix config"),
    3: ("crash", "fix code & fix config", "crash", "fix config & fix code"),
    4: ("crash", "fix code", "hang", "fix code"),
    5: ("wrong result", "fix config", "wrong result", "fix code"),
    6: ("crash", "fix code", "hang", "fix config"),
}


@pytest.fixture
def pair(tmp_path):
    """Two raters' CSV files over the six issues of LABELS."""
    a = [[LINK.format(n), cause, fix] for n, (cause, fix, _, _) in LABELS.items()]
    b = [[LINK.format(n), cause, fix] for n, (_, _, cause, fix) in LABELS.items()]
    return write_csv(tmp_path / "alice.csv", [HEADER, *a]), write_csv(tmp_path / "bob.csv", [HEADER, *b])
