"""Reading, cleaning and matching an import before anything is written: what the review step shows.

The plan reads the sheets (pure parsing in ``annotator.importers.sheets``), applies the label decisions,
and matches every label to a category of the chosen taxonomy version. Labels are compared in their
normal form against each category's name, code and aliases.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from annotator.importers.label_cleaning import LabelMapping, MergeSuggestion, normalise_label, suggest_merges
from annotator.importers.sheets import (
    RatingTable,
    Sheet,
    SheetReadError,
    apply_mapping,
    extract_ratings,
    read_sheets,
)
from annotator.models import Study
from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion

from .request import ColumnMap, SheetsImportError, SheetsImportRequest, sheet_limits

PROBLEMS_SHOWN = 30
# A spreadsheet joins several values of a multi-valued dimension with "&" (read as "and") or "/".
MULTI_SEPARATORS = (" and ", "/")


@dataclass(frozen=True, slots=True)
class CellRef:
    source: str
    sheet: str
    line: int | None
    column: str

    def __str__(self) -> str:
        line = f", line {self.line}" if self.line else ""
        return f"{self.source}, sheet '{self.sheet}'{line}, column '{self.column}'"


@dataclass(frozen=True, slots=True)
class Target:
    """A label's category: an existing one (by code) or, when ``code`` is None, one to add for ``label``."""

    code: str | None
    label: str


@dataclass(slots=True)
class UnknownLabel:
    dimension: str
    label: str
    display: str
    count: int
    first: CellRef

    def __str__(self) -> str:
        times = "once" if self.count == 1 else f"{self.count} times"
        return f"{self.first}: '{self.display}' fits no category of '{self.dimension}' (used {times})"


@dataclass(slots=True)
class SheetsImportPlan:
    request: SheetsImportRequest
    sheets: dict[str, Sheet]
    raw_table: RatingTable
    table: RatingTable
    suggestions: dict[str, list[MergeSuggestion]]
    undecided: dict[str, list[MergeSuggestion]]
    mapping: LabelMapping
    study: Study | None
    version: TaxonomyVersion | None
    dimensions: dict[str, Dimension | None]
    # (sheet name, item) -> dimension -> targets; an absent dimension is "not labelled"
    values: dict[tuple[str, str], dict[str, tuple[Target, ...]]] = field(default_factory=dict)
    unknown: list[UnknownLabel] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def sheet_names(self) -> list[str]:
        return [*self.request.raters, *([self.request.final] if self.request.final else [])]

    def source_of(self, sheet: str) -> str:
        return self.sheets[sheet].source

    def label_counts(self) -> dict[str, Counter]:
        """Per dimension, how often each cleaned label was used (raters and final sheet)."""
        return {c.dimension: self.table.label_counts(c.dimension) for c in self.request.columns}


def sheets_import_plan(*, request: SheetsImportRequest) -> SheetsImportPlan:
    """Everything the import would do, checked; raises SheetsImportError only when the files cannot be read."""
    sheets = _read(request)
    raters = [_sheet_name(sheets, name, request) for name in request.raters]
    final = _sheet_name(sheets, request.final, request) if request.final else None
    request = _with_sheet_names(request, raters, final)
    table_columns = {c.table_key(i): column for c in request.columns for i, column in enumerate(c.columns)}
    try:
        raw = extract_ratings(
            sheets, key=request.key, raters=raters, final=final, mapping=table_columns, missing=request.missing
        )
    except SheetReadError as exc:
        raise SheetsImportError(str(exc)) from exc
    errors = [str(p) for p in raw.problems if p.message.startswith("no column '")]
    warnings = [str(p) for p in raw.problems if not p.message.startswith("no column '")]

    study = Study.objects.filter(name__iexact=request.study_name.strip()).select_related("taxonomy_version").first()
    version = _version(request.taxonomy, request.add_unknown_labels, study, errors)
    dimensions = _dimensions(request, version, errors)
    indexes = {key: _CategoryIndex(list(d.categories.all()) if d else []) for key, d in dimensions.items()}

    suggestions: dict[str, list[MergeSuggestion]] = {}
    for table_key in table_columns:
        dimension = table_key.split(":", 1)[0]
        preferred = indexes[dimension].names if dimension in indexes else ()
        found = suggest_merges(raw.label_counts(table_key), missing=request.missing, preferred=preferred)
        if found:
            suggestions[table_key] = found
    decided = request.label_mapping or {}
    undecided = {
        key: [s for s in found if (key, s.from_label) not in decided and (None, s.from_label) not in decided]
        for key, found in suggestions.items()
    }
    undecided = {key: found for key, found in undecided.items() if found}
    mapping = dict(decided)
    if request.accept_suggestions:
        for key, found in undecided.items():
            mapping.update({(key, s.from_label): s.to_label for s in found})
    table = apply_mapping(raw, mapping) if mapping else raw

    plan = SheetsImportPlan(
        request=request,
        sheets=sheets,
        raw_table=raw,
        table=table,
        suggestions=suggestions,
        undecided=undecided if request.label_mapping is None and not request.accept_suggestions else {},
        mapping=mapping,
        study=study,
        version=version,
        dimensions=dimensions,
        errors=errors,
        warnings=warnings,
    )
    if not errors:
        _match(plan, indexes)
    return plan


def _read(request: SheetsImportRequest) -> dict[str, Sheet]:
    if request.sheets is not None:
        return dict(request.sheets)
    try:
        # Uploaded files are stored under other names: sheets and messages use the names people uploaded.
        return read_sheets(
            list(request.paths),
            limits=sheet_limits(),
            display_names={str(path): request.display_name(path) for path in request.paths},
        )
    except SheetReadError as exc:
        raise SheetsImportError(str(exc)) from exc


def _sheet_name(sheets: dict[str, Sheet], wanted: str, request: SheetsImportRequest) -> str:
    """A sheet by its name, or a CSV file by its file name (``rater1.csv`` is the sheet ``rater1``)."""
    if wanted in sheets:
        return wanted
    for name, sheet in sheets.items():
        if wanted in (sheet.source, sheet.source.rsplit(".", 1)[0]) or name.endswith(f":{wanted}"):
            return name
    files = ", ".join(request.display_name(p) for p in request.paths)
    raise SheetsImportError(
        f"There is no sheet '{wanted}' in {files}; the sheets are: {', '.join(sheets)}. "
        "Name the raters' sheets (or CSV files) exactly as they are called."
    )


def _with_sheet_names(request: SheetsImportRequest, raters: list[str], final: str | None) -> SheetsImportRequest:
    from dataclasses import replace

    return replace(request, raters=tuple(raters), final=final)


def _version(
    slug: str | None, add_unknown_labels: bool, study: Study | None, errors: list[str]
) -> TaxonomyVersion | None:
    if study is not None:
        version = study.taxonomy_version
        if slug and version.taxonomy.slug != slug:
            errors.append(
                f"The study '{study.name}' labels with taxonomy '{version.taxonomy.slug}', not '{slug}'; "
                "leave out --taxonomy or import into another study."
            )
        return version
    if not slug:
        if not add_unknown_labels:
            errors.append(
                "Choose the taxonomy to label with (--taxonomy <slug>), or let the import build one from the "
                "labels it finds (--add-unknown-labels)."
            )
        return None
    taxonomy = Taxonomy.objects.filter(slug=slug).first()
    if taxonomy is None:
        known = ", ".join(Taxonomy.objects.order_by("slug").values_list("slug", flat=True)) or "none loaded"
        errors.append(f"There is no taxonomy '{slug}' (taxonomies: {known}); load it first with load_taxonomy.")
        return None
    versions = taxonomy.versions.order_by("-number")
    return versions.filter(status=TaxonomyVersion.Status.PUBLISHED).first() or versions.first()


def _dimensions(
    request: SheetsImportRequest, version: TaxonomyVersion | None, errors: list[str]
) -> dict[str, Dimension | None]:
    if version is None:
        return {c.dimension: None for c in request.columns}
    found = {d.key: d for d in version.dimensions.all()}
    missing = [c.dimension for c in request.columns if c.dimension not in found]
    if missing:
        errors.append(
            f"{version.taxonomy.slug} v{version.number} has no dimension {', '.join(repr(m) for m in missing)}; "
            f"its dimensions are: {', '.join(found)}."
        )
    return {c.dimension: found.get(c.dimension) for c in request.columns}


def _forms(category: Category) -> set[str]:
    texts = [category.name, category.code, *(category.aliases or [])]
    return {form for form in (normalise_label(text, missing=()) for text in texts) if form}


class _CategoryIndex:
    """The categories of one dimension by every normal form of their names, with their ancestors' forms."""

    def __init__(self, categories: list[Category]):
        self.by_form: dict[str, list[Category]] = defaultdict(list)
        self.ancestors: dict[int, set[str]] = {}
        self.paths: dict[int, str] = {}
        self.names = [c.name for c in categories]
        by_pk = {c.pk: c for c in categories}
        for category in categories:
            for form in _forms(category):
                self.by_form[form].append(category)
            above, names, parent = set(), [category.name], by_pk.get(category.parent_id)
            while parent is not None:
                above |= _forms(parent)
                names.insert(0, parent.name)
                parent = by_pk.get(parent.parent_id)
            self.ancestors[category.pk] = above
            self.paths[category.pk] = " > ".join(names)

    def find(self, label: str, context: list[str]) -> list[Category]:
        """The categories a label names; among several, those under the most of the given upper levels."""
        candidates = list({c.pk: c for c in self.by_form.get(label, [])}.values())
        if len(candidates) <= 1:
            return candidates
        scores = [sum(level in self.ancestors[c.pk] for level in context) for c in candidates]
        best = [c for c, score in zip(candidates, scores, strict=True) if score == max(scores)]
        if len(best) > 1:
            best = [c for c in best if c.selectable and not c.deprecated] or best
        return best


def _split(index: _CategoryIndex, label: str, context: list[str]) -> list[str] | None:
    """The parts of a joined multi-valued label when every part names a category, else None."""
    parts: list[str] = []
    for piece in (p.strip() for p in label.split(MULTI_SEPARATORS[0])):
        if index.find(piece, context):
            parts.append(piece)
            continue
        sub = [s.strip() for s in piece.split(MULTI_SEPARATORS[1])]
        if len(sub) < 2 or not all(index.find(s, context) for s in sub):
            return None
        parts.extend(sub)
    return parts if len(parts) > 1 else None


def _match(plan: SheetsImportPlan, indexes: dict[str, _CategoryIndex]) -> None:
    """Fill ``plan.values`` with each cell's categories; list unknown and ambiguous labels."""
    table = plan.table
    unknown: dict[tuple[str, str], UnknownLabel] = {}
    ambiguous: dict[tuple[str, str], str] = {}
    for sheet in plan.sheet_names:
        source = table.final if sheet == table.final_name else table.ratings[sheet]
        for item, labels in source.items():
            line = table.rows.get(item, {}).get(sheet)
            cell_values: dict[str, tuple[Target, ...]] = {}
            for column_map in plan.request.columns:
                label = labels.get(column_map.dimension)
                if label is None:
                    continue
                context = [labels.get(column_map.table_key(i)) for i in range(len(column_map.columns) - 1)]
                context = [c for c in context if c]
                where = CellRef(plan.source_of(sheet), plan.sheets[sheet].name, line, column_map.label_column)
                targets = _targets(plan, indexes[column_map.dimension], column_map, label, context, where, ambiguous)
                if targets is None:
                    entry = unknown.get((column_map.dimension, label))
                    if entry is None:
                        display = table.display(column_map.dimension, label)
                        unknown[(column_map.dimension, label)] = UnknownLabel(
                            column_map.dimension, label, display, 1, where
                        )
                    else:
                        entry.count += 1
                    targets = (Target(code=None, label=label),)
                if targets:
                    cell_values[column_map.dimension] = targets
            plan.values[(sheet, item)] = cell_values
    plan.unknown = sorted(unknown.values(), key=lambda u: (u.dimension, u.label))
    plan.errors.extend(ambiguous.values())
    if plan.unknown and not plan.request.add_unknown_labels:
        plan.errors.append(
            f"{len(plan.unknown)} label(s) fit no category. Map them to categories in a label mapping file "
            "(--labels), or add them to a draft version of the taxonomy (--add-unknown-labels):"
        )
        plan.errors.extend(str(u) for u in plan.unknown)
    _check_keys(plan)


def _targets(plan, index, column_map: ColumnMap, label, context, where, ambiguous) -> tuple[Target, ...] | None:
    found = index.find(label, context)
    if len(found) == 1:
        return (Target(found[0].code, label),)
    if len(found) > 1:
        if (column_map.dimension, label) not in ambiguous:
            paths = "; ".join(index.paths[c.pk] for c in found)
            hint = (
                f'map the columns above it too, e.g. --map "{column_map.dimension}=Stage>{column_map.label_column}"'
                if len(column_map.columns) == 1
                else "check the upper levels in that row"
            )
            ambiguous[(column_map.dimension, label)] = (
                f"{where}: '{label}' fits several categories of '{column_map.dimension}' ({paths}); {hint}."
            )
        return ()
    dimension = plan.dimensions.get(column_map.dimension)
    if dimension is not None and dimension.multi_valued:
        parts = _split(index, label, context)
        if parts:
            return tuple(dict.fromkeys(Target(index.find(p, context)[0].code, p) for p in parts))
    return None


def _check_keys(plan: SheetsImportPlan) -> None:
    """Every key must be a web link: the issue is created from it."""
    for item in plan.table.items:
        if not item.startswith("https://"):
            sheet, line = next(iter(plan.table.rows[item].items()))
            where = CellRef(plan.source_of(sheet), plan.sheets[sheet].name, line, plan.request.key)
            plan.errors.append(f"{where}: '{item}' is not a web link; the key column must hold links to the issues.")
            if len(plan.errors) > PROBLEMS_SHOWN:
                return


def sheets_import_dimensions(*, study_name: str, taxonomy: str | None) -> list[tuple[str, str]] | None:
    """The (key, name) of the dimensions an import would label: the study's version's, else the taxonomy's
    latest published version's; None when a new taxonomy is to be built from the labels."""
    study = Study.objects.filter(name__iexact=study_name.strip()).select_related("taxonomy_version").first()
    version = _version(taxonomy, True, study, [])
    if version is None:
        return None
    return list(version.dimensions.order_by("order", "key").values_list("key", "name"))
