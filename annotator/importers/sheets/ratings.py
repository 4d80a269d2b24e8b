"""From rater sheets to a ``RatingTable``: per item, per rater, per dimension, the normalised label or None."""

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit, urlunsplit

from ..label_cleaning import DEFAULT_MISSING, display_form, lookup_mapping, normalise_label
from ..records import RecordProblem
from .reading import Sheet, SheetReadError, find_column

Label = str | None


@dataclass(slots=True)
class SheetProblem(RecordProblem):
    """Something in a sheet a person should look at; ``location`` reads "file, sheet 'name', line n"."""

    source: str = ""
    sheet: str = ""
    line: int | None = None


def _problem(sheet: Sheet, line: int | None, column: str, message: str) -> SheetProblem:
    return SheetProblem(sheet.location(line), column, message, source=sheet.source, sheet=sheet.name, line=line)


def normalise_key(text: str | None) -> str | None:
    """The matching form of an item key: stripped; for a web link also https, lower-case host, no trailing
    slash and no '#fragment' (a link to a comment still names the issue)."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    parts = urlsplit(text)
    if parts.scheme.lower() in {"http", "https"} and parts.netloc:
        return urlunsplit(("https", parts.netloc.lower(), parts.path.rstrip("/"), parts.query, ""))
    return text


@dataclass(frozen=True, slots=True)
class RatingTable:
    """The labels of several raters (and optionally the agreed final labels) for the same items.

    ``ratings[rater][item][dimension]`` is a normalised label or None ("not labelled"); an item is absent from
    ``ratings[rater]`` when that rater's sheet has no row for it. ``final`` has the same shape per item.
    ``spellings[dimension][label]`` counts every original spelling seen. ``rows[item][sheet]`` is the line the
    item is on, to point a person at it.
    """

    dimensions: tuple[str, ...]
    raters: tuple[str, ...]
    items: tuple[str, ...]
    ratings: Mapping[str, Mapping[str, Mapping[str, Label]]]
    final: Mapping[str, Mapping[str, Label]] = field(default_factory=dict)
    final_name: str | None = None
    spellings: Mapping[str, Mapping[str, Counter]] = field(default_factory=dict)
    problems: tuple[SheetProblem, ...] = ()
    rows: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def label(self, rater: str, item: str, dimension: str) -> Label:
        """One rater's label (``rater`` may be the final sheet's name)."""
        source = self.final if rater == self.final_name else self.ratings[rater]
        return source.get(item, {}).get(dimension)

    def matrix(
        self, dimension: str, *, raters: Sequence[str] | None = None, with_final: bool = False
    ) -> list[list[Label]]:
        """Rater rows over ``items`` (the shape ``annotator.agreement`` takes), the final row last if asked."""
        names = list(raters or self.raters)
        if with_final:
            if self.final_name is None:
                raise ValueError("This table was read without a final sheet.")
            names.append(self.final_name)
        return [[self.label(name, item, dimension) for item in self.items] for name in names]

    def labelled_by_all(self, dimension: str, *, raters: Sequence[str] | None = None) -> int:
        """How many items every one of ``raters`` (default: all) labelled on ``dimension``."""
        rows = self.matrix(dimension, raters=raters)
        return sum(all(cell is not None for cell in column) for column in zip(*rows, strict=True))

    def label_counts(self, dimension: str) -> Counter:
        """How often each normalised label was used on ``dimension``, by the raters and in the final sheet."""
        counts: Counter = Counter()
        for source in [*self.ratings.values(), self.final]:
            counts.update(labels[dimension] for labels in source.values() if labels.get(dimension) is not None)
        return counts

    def display(self, dimension: str, label: str) -> str:
        """The most frequent original spelling of ``label``, for showing it to a person."""
        return display_form(self.spellings.get(dimension, {}).get(label, {})) or label


def extract_ratings(
    sheets: Mapping[str, Sheet],
    *,
    key: str,
    raters: Sequence[str],
    final: str | None = None,
    mapping: Mapping[str, str],
    missing: Iterable[str] = DEFAULT_MISSING,
) -> RatingTable:
    """Match the raters' rows on the ``key`` column and read each dimension's column (``mapping``: dimension ->
    column header, found with ``find_column``).

    Problems are recorded, not raised: a missing column (that dimension reads as None for the sheet), a row
    without a key (skipped), a key repeated within a sheet (the first row counts), a key absent from some of
    the sheets. Only a sheet name that is not in ``sheets`` raises ``SheetReadError``.
    """
    missing = frozenset(missing)
    names = [*raters, *([final] if final else [])]
    for name in names:
        if name not in sheets:
            raise SheetReadError(f"There is no sheet '{name}'; the sheets read are: {', '.join(sheets)}.")
    problems: list[SheetProblem] = []
    spellings: dict[str, dict[str, Counter]] = {dimension: {} for dimension in mapping}
    per_sheet: dict[str, dict[str, dict[str, Label]]] = {}
    rows: dict[str, dict[str, int]] = {}
    for name in names:
        per_sheet[name] = _read_one(sheets[name], key, mapping, missing, spellings, problems, rows, name)
    items = tuple(rows)
    for item in items:
        present = rows[item]
        absent = [name for name in names if name not in present]
        if absent:
            first = next(iter(present))
            problems.append(
                _problem(
                    sheets[first],
                    present[first],
                    key,
                    f"'{item}' is not in sheet(s) {', '.join(repr(n) for n in absent)}; it cannot be compared there.",
                )
            )
    return RatingTable(
        dimensions=tuple(mapping),
        raters=tuple(raters),
        items=items,
        ratings={name: per_sheet[name] for name in raters},
        final=per_sheet[final] if final else {},
        final_name=final,
        spellings=spellings,
        problems=tuple(problems),
        rows=rows,
    )


def _read_one(sheet, key, mapping, missing, spellings, problems, rows, name) -> dict[str, dict[str, Label]]:
    key_column = find_column(sheet, key)
    if key_column is None:
        problems.append(_problem(sheet, None, key, f"no column '{key}' to match rows on; the sheet is skipped."))
        return {}
    columns: dict[str, str | None] = {}
    for dimension, header in mapping.items():
        columns[dimension] = find_column(sheet, header)
        if columns[dimension] is None:
            problems.append(
                _problem(
                    sheet,
                    None,
                    header,
                    f"no column '{header}' (headers: {', '.join(h for h in sheet.headers if h)}); "
                    f"'{dimension}' reads as not labelled here.",
                )
            )
    labels: dict[str, dict[str, Label]] = {}
    for row in sheet.rows:
        item = normalise_key(row.values.get(key_column))
        if item is None:
            problems.append(_problem(sheet, row.line, key, f"no {key}; the row cannot be matched and is skipped."))
            continue
        if item in labels:
            problems.append(
                _problem(
                    sheet,
                    row.line,
                    key,
                    f"'{item}' is also on line {rows[item][name]}; only that first row counts.",
                )
            )
            continue
        rows.setdefault(item, {})[name] = row.line
        labels[item] = {}
        for dimension, column in columns.items():
            raw = row.values.get(column) if column else None
            label = normalise_label(raw, missing=missing)
            labels[item][dimension] = label
            if label is not None:
                spellings[dimension].setdefault(label, Counter())[raw] += 1
    return labels


def apply_mapping(table: RatingTable, mapping: Mapping[tuple[str | None, str], Label]) -> RatingTable:
    """A new table with every label replaced as ``mapping`` says (see ``label_cleaning.lookup_mapping``)."""

    def remap(labels: Mapping[str, Label]) -> dict[str, Label]:
        return {dimension: lookup_mapping(mapping, dimension, label) for dimension, label in labels.items()}

    spellings: dict[str, dict[str, Counter]] = {}
    for dimension, by_label in table.spellings.items():
        merged = spellings.setdefault(dimension, {})
        for label, seen in by_label.items():
            target = lookup_mapping(mapping, dimension, label)
            if target is not None:
                merged.setdefault(target, Counter()).update(seen)
    return replace(
        table,
        ratings={rater: {item: remap(v) for item, v in items.items()} for rater, items in table.ratings.items()},
        final={item: remap(v) for item, v in table.final.items()},
        spellings=spellings,
    )


def labels_outside(table: RatingTable, known: Mapping[str, Iterable[str]]) -> dict[str, Counter]:
    """Per dimension in ``known`` (names and aliases of its categories, any spelling), the labels used that
    match none of them, with how often they were used."""
    outside: dict[str, Counter] = {}
    for dimension, names in known.items():
        if dimension not in table.dimensions:
            continue
        accepted = {normalise_label(name, missing=()) for name in names}
        counts = table.label_counts(dimension)
        outside[dimension] = Counter({label: n for label, n in counts.items() if label not in accepted})
    return outside


def level_matrices(
    table: RatingTable,
    levels: Sequence[str],
    *,
    paths: bool = False,
    raters: Sequence[str] | None = None,
    with_final: bool = False,
) -> dict[str, list[list]]:
    """Rater-by-item matrices for each level of a hierarchy (e.g. stage > inner category > leaf).

    The value of a level is simply that level's column; an item counts at a level only where the rater filled
    that column. With ``paths=True`` the value is the tuple of the values from the top down to that level, so
    two leaves of the same name under different parents disagree.
    """
    columns = {level: table.matrix(level, raters=raters, with_final=with_final) for level in levels}
    if not paths:
        return columns
    result: dict[str, list[list]] = {}
    for depth, level in enumerate(levels):
        above = [columns[name] for name in levels[: depth + 1]]
        result[level] = [
            [
                tuple(rows[r][i] for rows in above) if columns[level][r][i] is not None else None
                for i in range(len(table.items))
            ]
            for r in range(len(columns[level]))
        ]
    return result
