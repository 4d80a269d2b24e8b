"""Importing a study done in spreadsheets: one sheet per rater, one row per issue, optionally a final sheet.

``sheets_import_plan(request=...)`` reads, cleans and matches without writing (the review step);
``sheets_import(request=..., actor=...)`` writes one round of a study in one transaction. The parsing is
the pure code in ``annotator.importers.sheets`` and ``annotator.importers.label_cleaning``.
"""

from .persist import LabelDecisionsNeeded, SheetsImportResult, issue_record_for_link, sheets_import
from .plan import CellRef, SheetsImportPlan, Target, UnknownLabel, sheets_import_dimensions, sheets_import_plan
from .request import (
    ColumnMap,
    SheetsImportError,
    SheetsImportRequest,
    column_map_parse,
    mapping_from_rows,
    mapping_rows,
    sheet_limits,
)

__all__ = [
    "CellRef",
    "ColumnMap",
    "LabelDecisionsNeeded",
    "SheetsImportError",
    "SheetsImportPlan",
    "SheetsImportRequest",
    "SheetsImportResult",
    "Target",
    "UnknownLabel",
    "column_map_parse",
    "issue_record_for_link",
    "mapping_from_rows",
    "mapping_rows",
    "sheet_limits",
    "sheets_import",
    "sheets_import_dimensions",
    "sheets_import_plan",
]
