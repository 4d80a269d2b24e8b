"""Rater CSV files for the spreadsheet import tests."""

import csv
from pathlib import Path

HEADER = ["Link", "Cause", "Fix"]
LINK = "https://github.com/org/repo/issues/{}"


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path
