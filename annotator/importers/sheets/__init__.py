"""Importing studies done in spreadsheets: the pure half (no Django), shared by the import service, the
``import_sheets`` command and the upload page.

Steps and the functions for each:

1. ``read_sheets(path_or_paths, sheet_names=None) -> dict[str, Sheet]`` reads .xlsx (values, not formulas)
   and .csv (UTF-8, delimiter sniffed) files. A ``Sheet`` has ``name``, ``source`` (file name), ``headers``
   (as written) and ``rows``: ``SheetRow(line, values)`` with ``values`` keyed by ``normalise_header``; empty
   rows and empty unnamed columns are dropped; 1.0 reads as "1". Unreadable input raises ``SheetReadError``.
   Only real cells are read (a declared sheet range is not trusted) and ``SheetLimits`` caps the rows, the
   columns, the cells and what a workbook may expand to: input beyond a limit is refused, never truncated.
2. ``find_column(sheet, "Leaf Category")`` finds a column despite case, spacing, a " Final" suffix and small
   typos ("Issue Type ", "Distributed-specified").
3. ``extract_ratings(sheets, key="Link", raters=["label1", "label2"], final="Final", mapping={dimension:
   header}, missing={"PENDING"}) -> RatingTable`` matches rows on the normalised key (``normalise_key``) and
   normalises every label (``label_cleaning.normalise_label``): blank and missing markers are None. Problems
   (no key, duplicate key, key missing from a sheet, column not found) are collected in ``table.problems`` as
   ``SheetProblem(location, field, message)`` naming file, sheet, line and column; nothing is raised for them.
4. Cleaning: ``label_cleaning.suggest_merges(table.label_counts(dimension))`` proposes typo merges; the
   accepted ones go into a ``dimension,from,to`` CSV (``write_label_mapping``), and
   ``apply_mapping(table, read_label_mapping(path))`` returns the cleaned table, so an import is repeatable
   from the spreadsheets plus the mapping file.
5. Checking against a taxonomy: ``labels_outside(table, {dimension: category names and aliases})``.
6. Agreement: ``table.matrix(dimension)`` is the rater-by-item list that ``annotator.agreement`` measures take
   (None where not labelled); ``table.labelled_by_all(dimension)`` counts the items both raters labelled.
   For a hierarchy (stage > inner category > leaf symptom), ``level_matrices(table, levels)`` gives one matrix
   per level; a level's value is just its column's value (``paths=True`` for the top-down path instead).
"""

from .ratings import (
    RatingTable,
    SheetProblem,
    apply_mapping,
    extract_ratings,
    labels_outside,
    level_matrices,
    normalise_key,
)
from .reading import (
    Sheet,
    SheetLimits,
    SheetReadError,
    SheetRow,
    cell_text,
    find_column,
    normalise_header,
    read_sheets,
)

__all__ = [
    "RatingTable",
    "Sheet",
    "SheetLimits",
    "SheetProblem",
    "SheetReadError",
    "SheetRow",
    "apply_mapping",
    "cell_text",
    "extract_ratings",
    "find_column",
    "labels_outside",
    "level_matrices",
    "normalise_header",
    "normalise_key",
    "read_sheets",
]
