"""Fixtures used by more than one folder of the annotator tests: the fake GitHub and the settings pointing at it,
a small published taxonomy and two raters' CSV files for the spreadsheet imports. Models are imported inside the
fixtures: the pure test folders below run without a database."""

from pathlib import Path

import pytest

from tests.annotator.github.fake_github import FakeGitHub
from tests.annotator.sheets_import.csv_files import HEADER, write_csv
from tests.factories import make_bugs_taxonomy


@pytest.fixture
def fake_github():
    fake = FakeGitHub().start()
    yield fake
    fake.stop()


@pytest.fixture
def github_settings(settings, fake_github):
    settings.GITHUB_API_URL = fake_github.base_url
    settings.GITHUB_TOKEN = "test-token"
    return settings


@pytest.fixture
def bugs_taxonomy(db):
    return make_bugs_taxonomy()


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
