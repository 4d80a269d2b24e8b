"""What an import of rater spreadsheets is asked to do: the same for the command and the upload page."""

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from annotator.importers.label_cleaning import DEFAULT_MISSING, LabelMapping
from annotator.importers.sheets import Sheet, SheetLimits
from core.errors import DomainError

# "symptom=Stage>Type>Leaf Category": the last column holds the label, the ones before it the levels
# above it in the category tree, used to tell apart leaves of the same name under different parents.
LEVEL_SEPARATOR = ">"


def sheet_limits() -> SheetLimits:
    """What a spreadsheet read may hold (rows, columns, cells, a workbook's expanded size), from the settings."""
    return SheetLimits(
        max_rows=settings.SHEETS_MAX_ROWS,
        max_columns=settings.SHEETS_MAX_COLUMNS,
        max_cells=settings.SHEETS_MAX_CELLS,
        max_uncompressed_bytes=settings.SHEETS_MAX_UNCOMPRESSED_BYTES,
    )


class SheetsImportError(DomainError):
    """Input that cannot be imported as it is. ``problems`` has one line per problem, naming where it is."""

    def __init__(self, message: str, *, problems: Sequence[str] = ()):
        self.problems = list(problems)
        text = message if not self.problems else message + "\n" + "\n".join(f"  {p}" for p in self.problems)
        super().__init__(text)
        self.summary = message


@dataclass(frozen=True, slots=True)
class ColumnMap:
    """One dimension of the study and the column(s) it is read from, top level first."""

    dimension: str
    columns: tuple[str, ...]

    @property
    def label_column(self) -> str:
        return self.columns[-1]

    def table_key(self, level: int) -> str:
        """The name of a column inside the rating table: the dimension itself for the label column."""
        if level == len(self.columns) - 1:
            return self.dimension
        return f"{self.dimension}:{self.columns[level]}"

    def __str__(self) -> str:
        return f"{self.dimension}={LEVEL_SEPARATOR.join(self.columns)}"


def column_map_parse(text: str) -> ColumnMap:
    """Read "dimension=Column" or "dimension=Top column>...>Label column"."""
    dimension, sep, columns = text.partition("=")
    parts = tuple(part.strip() for part in columns.split(LEVEL_SEPARATOR))
    if not sep or not dimension.strip() or not all(parts):
        raise SheetsImportError(
            f"'{text}' is not a column mapping; write <dimension>=<column>, e.g. stage=Stage, or "
            f"<dimension>=<top column>{LEVEL_SEPARATOR}<label column> for a category tree."
        )
    return ColumnMap(dimension=dimension.strip(), columns=parts)


@dataclass(frozen=True, slots=True)
class SheetsImportRequest:
    """Everything that decides what an import writes. Two equal requests on equal files write the same."""

    paths: tuple[Path, ...]
    study_name: str
    raters: tuple[str, ...]
    key: str
    columns: tuple[ColumnMap, ...]
    final: str | None = None
    missing: frozenset[str] = DEFAULT_MISSING
    # The label decisions (a mapping file, or the boxes ticked on the page); None: none taken yet.
    label_mapping: LabelMapping | None = None
    accept_suggestions: bool = False
    taxonomy: str | None = None
    add_unknown_labels: bool = False
    rater_users: tuple[str, ...] = ()
    round_number: int | None = None
    # How files are named to people (an uploaded file is stored under another name); default: the path's name.
    display_names: Mapping[str, str] = field(default_factory=dict)
    # The files as read already (by the wizard's reading task); None: read them now.
    sheets: Mapping[str, Sheet] | None = None

    def __post_init__(self):
        if not self.paths:
            raise SheetsImportError("Give at least one .xlsx or .csv file to import.")
        if not self.study_name.strip():
            raise SheetsImportError("Name the study to import into (--study).")
        if not self.raters:
            raise SheetsImportError("Name the raters' sheets (--raters label1,label2).")
        if not self.key.strip():
            raise SheetsImportError("Name the column that identifies an issue (--key Link).")
        if not self.columns:
            raise SheetsImportError("Map at least one dimension to a column (--map stage=Stage).")
        dimensions = [c.dimension for c in self.columns]
        if len(set(dimensions)) != len(dimensions):
            raise SheetsImportError("Each dimension can be mapped once; a dimension appears twice in --map.")
        if self.rater_users and len(self.rater_users) != len(self.raters):
            raise SheetsImportError(
                f"--rater-users names {len(self.rater_users)} users for {len(self.raters)} rater sheets; "
                "give one user per sheet, in the same order."
            )
        if self.round_number is not None and self.round_number < 1:
            raise SheetsImportError("Rounds are numbered from 1.")

    def display_name(self, path: Path) -> str:
        return self.display_names.get(str(path), path.name)

    def fingerprint(self, *, applied: LabelMapping) -> str:
        """A digest of the files' contents and of every decision: equal digests mean an equal import.

        ``applied`` is the label mapping in effect, so a mapping file and --accept-suggestions that decide
        the same count as the same import."""
        digest = hashlib.sha256()
        for path in self.paths:
            with path.open("rb") as handle:
                digest.update(hashlib.file_digest(handle, "sha256").hexdigest().encode())
        decisions = {k: v for k, v in self.decisions().items() if k not in ("label_mapping", "accept_suggestions")}
        decisions["applied"] = mapping_rows(applied)
        digest.update(json.dumps(decisions, sort_keys=True).encode())
        return digest.hexdigest()

    def decisions(self) -> dict:
        """The parameters as plain JSON, kept with the round so a person can see how it was imported."""
        return {
            "files": [self.display_name(path) for path in self.paths],
            "raters": list(self.raters),
            "final": self.final,
            "key": self.key,
            "columns": [str(c) for c in self.columns],
            "missing": sorted(self.missing),
            "label_mapping": None if self.label_mapping is None else mapping_rows(self.label_mapping),
            "accept_suggestions": self.accept_suggestions,
            "taxonomy": self.taxonomy,
            "add_unknown_labels": self.add_unknown_labels,
            "rater_users": list(self.rater_users),
        }


def mapping_rows(mapping: LabelMapping) -> list[list[str]]:
    """A mapping as sorted [dimension, from, to] rows (blank dimension: all; blank to: not labelled)."""
    return sorted([dimension or "", source, target or ""] for (dimension, source), target in mapping.items())


def mapping_from_rows(rows: Iterable[Sequence[str]]) -> LabelMapping:
    return {(dimension or None, source): (target or None) for dimension, source, target in rows}
