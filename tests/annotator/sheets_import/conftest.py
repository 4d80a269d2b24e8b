"""Fixtures for importing spreadsheet studies: the Gu et al. data, small CSV studies and a tiny taxonomy."""

import csv
from pathlib import Path

import pytest
from django.core.management import call_command

from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion
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


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


@pytest.fixture
def bugs_taxonomy(db) -> TaxonomyVersion:
    """A published taxonomy 'bugs': cause (crash, hang, wrong result; alias 'freeze' for hang) and
    fix (multi-valued: fix config, fix code)."""
    from django.utils import timezone

    taxonomy = Taxonomy.objects.create(slug="bugs", name="Bugs")
    version = TaxonomyVersion.objects.create(
        taxonomy=taxonomy, number=1, status="published", published_at=timezone.now()
    )
    cause = Dimension.objects.create(version=version, key="cause", name="Cause", order=0)
    fix = Dimension.objects.create(version=version, key="fix", name="Fix", order=1, multi_valued=True)
    Category.objects.create(dimension=cause, code="crash", name="Crash")
    Category.objects.create(dimension=cause, code="hang", name="Hang", aliases=["freeze"])
    Category.objects.create(dimension=cause, code="wrong-result", name="Wrong result")
    Category.objects.create(dimension=fix, code="fix-config", name="fix config")
    Category.objects.create(dimension=fix, code="fix-code", name="fix code")
    return version


HEADER = ["Link", "Cause", "Fix"]


@pytest.fixture
def rater_csvs(tmp_path) -> tuple[Path, Path]:
    """Two raters' CSV files over three GitHub issues; rater B typed 'Hang ' and '&' and left one blank."""
    a = write_csv(
        tmp_path / "alice.csv",
        [
            HEADER,
            ["https://github.com/org/repo/issues/1", "crash", "fix code"],
            ["https://github.com/org/repo/issues/2", "hang", "fix config"],
            ["https://github.com/org/repo/issues/3", "Wrong result", "fix code & fix config"],
        ],
    )
    b = write_csv(
        tmp_path / "bob.csv",
        [
            HEADER,
            ["https://github.com/org/repo/issues/1", "Crash", "fix code"],
            ["https://github.com/org/repo/issues/2", "Hang ", "fix config"],
            ["https://github.com/org/repo/issues/3", "", "PENDING"],
        ],
    )
    return a, b


LINK = "https://github.com/org/repo/issues/{}"
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
