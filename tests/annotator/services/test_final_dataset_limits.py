"""The final-dataset import reads its spreadsheet within the SHEETS_* limits, like every other spreadsheet import."""

import pytest

from annotator.models import Issue, Study
from annotator.services.final_dataset_import import FinalDatasetError, final_dataset_import
from tests.annotator.sheets_import.csv_files import write_csv

pytestmark = pytest.mark.django_db
HEADER = ["Type", "Link", "distributed-specific", "stage", "inner-category", "leaf category", "fix pattern"]


def _rows(count: int) -> list[list[str]]:
    link = "https://github.com/org/repo/issues/{}"
    return [[HEADER[0], link.format(n), "0", "Training", "Crash", "Crash", "fix code"] for n in range(1, count + 1)]


def test_a_sheet_beyond_the_configured_rows_is_refused_before_anything_is_written(tmp_path, settings):
    settings.SHEETS_MAX_ROWS = 4  # the header and three rows
    path = write_csv(tmp_path / "faults.csv", [HEADER, *_rows(5)])
    with pytest.raises(FinalDatasetError, match="beyond the 4 rows read"):
        final_dataset_import(path=path, study_name="Too long")
    assert not Study.objects.exists()
    assert not Issue.objects.exists()


def test_a_sheet_beyond_the_configured_cells_is_refused(tmp_path, settings):
    settings.SHEETS_MAX_CELLS = 20  # 7 columns: the header and two rows fit, three do not
    path = write_csv(tmp_path / "faults.csv", [HEADER, *_rows(3)])
    with pytest.raises(FinalDatasetError, match="20"):
        final_dataset_import(path=path, study_name="Too many cells")
    assert not Study.objects.exists()
