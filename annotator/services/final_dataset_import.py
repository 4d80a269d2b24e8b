"""Importing a published final dataset (one row per issue, final labels only, no raters) as a study.

Made for the replication data of Liu, Gu et al. (TOSEM 2023), ``final_categories.xlsx`` sheet ``faults``:
columns Type, Link, distributed-specific (0/1), stage, inner-category, leaf category, fix pattern. Labels are
matched to the ``gu-tosem23`` taxonomy by their normal form (``normalise_label``) against each category's
name, code and aliases; a leaf name that occurs under several parents is told apart by the row's stage and
inner category. A cell naming two categories ("Unexpected Parallelization & Device"; fix patterns joined
with " & " or " / ") gives each of them. Every label must match: otherwise nothing is written and every
unknown label is listed with its line. Cells the rules cannot read (typos inside a compound, such as "fix
dependency installatiovn/version") are settled by a label mapping (``dimension,from,to`` as in
docs/label-cleaning.md), whose target may name several categories separated by ";".

A row without a link cannot point at an issue; it is kept (the dataset's counts include it) as an issue
whose address names the spreadsheet row, ``urn:sheet:<file>:<sheet>:<line>``.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from annotator.importers.label_cleaning import LabelMapping, lookup_mapping, normalise_label
from annotator.importers.records import IssueRecord
from annotator.importers.sheets import read_sheets
from annotator.importers.sheets.reading import SheetReadError, find_column
from annotator.models import Issue, Resolution, ResolutionHistory, Study, StudyIssue, StudyRound
from annotator.services.history import resolution_snapshot
from annotator.services.issues import issues_upsert
from annotator.services.resolutions.values import resolutions_bulk_create
from annotator.services.sheets_import import issue_record_for_link, sheet_limits
from core.errors import DomainError
from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.services.templates import taxonomy_template_load

COLUMNS = {
    "link": "Link",
    "distributed_specific": "distributed-specific",
    "stage": "stage",
    "inner": "inner-category",
    "leaf": "leaf category",
    "fix_pattern": "fix pattern",
}
FIX_SEPARATOR = re.compile(r"\s+(?:&|/)\s+")
COMPOUND_SEPARATOR = re.compile(r"\s+&\s+")
MAPPED_SEPARATOR = ";"
PROBLEMS_SHOWN = 30


class FinalDatasetError(DomainError):
    def __init__(self, message: str, problems: list[str] | None = None):
        self.problems = problems or []
        shown = self.problems[:PROBLEMS_SHOWN]
        more = len(self.problems) - len(shown)
        text = "\n".join([message, *(f"  {p}" for p in shown), *([f"  ... and {more} more."] if more > 0 else [])])
        super().__init__(text)


@dataclass(slots=True)
class FinalDatasetResult:
    study: Study
    rows: int = 0
    issues_created: int = 0
    without_link: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"study '{self.study.name}': {self.rows} issues with final labels ({self.issues_created} new issues, "
            f"{self.without_link} rows without a link kept as spreadsheet rows)."
        )


class _Index:
    """The categories of one dimension by the normal form of their name, code and aliases."""

    def __init__(self, categories: list[Category]):
        by_pk = {c.pk: c for c in categories}
        self.by_form: dict[str, list[Category]] = defaultdict(list)
        self.ancestors: dict[int, set[str]] = {}
        for category in categories:
            for text in (category.name, category.code, *(category.aliases or [])):
                form = normalise_label(text, missing=())
                if form and category not in self.by_form[form]:
                    self.by_form[form].append(category)
            above, parent = set(), by_pk.get(category.parent_id)
            while parent is not None:
                above |= {normalise_label(t, missing=()) for t in (parent.name, parent.code, *(parent.aliases or []))}
                parent = by_pk.get(parent.parent_id)
            self.ancestors[category.pk] = above

    def find(self, label: str, context: list[str]) -> Category | None:
        candidates = self.by_form.get(normalise_label(label, missing=()) or "", [])
        if len(candidates) > 1:
            scores = [sum(c in self.ancestors[x.pk] for c in context) for x in candidates]
            best = [x for x, s in zip(candidates, scores, strict=True) if s == max(scores)]
            candidates = [x for x in best if x.selectable] or best
        return candidates[0] if len(candidates) == 1 else None

    def match(self, text: str, context: list[str], separator: re.Pattern) -> list[Category] | None:
        """The categories a cell names: the whole cell, else each of its parts; None when any part is unknown."""
        whole = self.find(text, context)
        if whole is not None:
            return [whole]
        parts = [self.find(part, context) for part in separator.split(text.strip())]
        if len(parts) < 2 or any(p is None for p in parts):
            return None
        return list(dict.fromkeys(parts))


def _version(slug: str) -> TaxonomyVersion:
    return taxonomy_template_load(source=slug).version


def _rows(path: Path, sheet_name: str):
    try:
        sheets = read_sheets(path, sheet_names=[sheet_name], limits=sheet_limits())  # the SHEETS_* settings
    except SheetReadError as exc:
        raise FinalDatasetError(str(exc)) from None
    sheet = next(iter(sheets.values()))
    columns = {key: find_column(sheet, header) for key, header in COLUMNS.items()}
    missing = [COLUMNS[key] for key in ("stage", "leaf") if columns[key] is None]
    if missing:
        raise FinalDatasetError(f"{sheet.location()} has no column {', '.join(missing)}; its headers: {sheet.headers}.")
    return sheet, columns


def final_dataset_import(
    *,
    path: Path | str,
    study_name: str,
    taxonomy: str = "gu-tosem23",
    sheet: str = "faults",
    label_mapping: LabelMapping | None = None,
    owner=None,
) -> FinalDatasetResult:
    """Create a study holding the final labels of every row (one transaction; all labels must match)."""
    path = Path(path)
    if Study.objects.filter(name__iexact=study_name).exists():
        raise FinalDatasetError(f"A study named '{study_name}' exists already; choose another name.")
    with transaction.atomic():
        return _import(path, study_name, taxonomy, sheet, label_mapping or {}, owner)


def _import(path: Path, study_name: str, taxonomy: str, sheet_name: str, mapping: LabelMapping, owner):
    version = _version(taxonomy)
    dimensions = {d.key: d for d in Dimension.objects.filter(version=version)}
    wanted = [
        key for key in ("issue_type", "distributed_specific", "stage", "symptom", "fix_pattern") if key in dimensions
    ]
    indexes = {key: _Index(list(Category.objects.filter(dimension=dimensions[key]).order_by("pk"))) for key in wanted}
    sheet, columns = _rows(path, sheet_name)
    problems: list[str] = []
    labelled: list[tuple[str, dict[str, list[int]], int]] = []
    without_link = 0
    for row in sheet.rows:
        cells = {key: (row.values.get(col) if col else None) for key, col in columns.items()}
        where = sheet.location(row.line)
        link = (cells["link"] or "").strip()
        if not link:
            link = f"urn:sheet:{path.name}:{sheet.name}:{row.line}"
            without_link += 1
        values: dict[str, list[int]] = {}
        if "issue_type" in indexes:
            fault = indexes["issue_type"].find("fault", [])
            if fault is not None:
                values["issue_type"] = [fault.pk]
        flag = (cells["distributed_specific"] or "").strip()
        if "distributed_specific" in indexes and flag in ("0", "1"):
            found = indexes["distributed_specific"].find("yes" if flag == "1" else "no", [])
            if found is not None:
                values["distributed_specific"] = [found.pk]
        stage, inner = cells["stage"], cells["inner"]
        context = [c for c in (normalise_label(stage), normalise_label(inner)) if c]
        for key, text, separator, ctx in (
            ("stage", stage, COMPOUND_SEPARATOR, []),
            ("symptom", cells["leaf"], COMPOUND_SEPARATOR, context),
            ("fix_pattern", cells["fix_pattern"], FIX_SEPARATOR, []),
        ):
            form = normalise_label(text)
            if key not in indexes or form is None:
                continue
            mapped = lookup_mapping(mapping, key, form)
            if mapped is None:
                continue  # mapped to "not labelled"
            if mapped != form:
                parts = [indexes[key].find(part, ctx) for part in mapped.split(MAPPED_SEPARATOR)]
                found = None if any(p is None for p in parts) else list(dict.fromkeys(parts))
            else:
                found = indexes[key].match(text, ctx, separator)
            if found is None:
                problems.append(f"{where}: '{text}' fits no category of '{key}' in {taxonomy}.")
            else:
                values[key] = sorted(c.pk for c in found)
        labelled.append((link, values, row.line))
    if problems:
        raise FinalDatasetError("Nothing was imported; these labels fit no category:", problems)

    records = [
        issue_record_for_link(link) if not link.startswith("urn:") else IssueRecord(url=link, title=link, kind="post")
        for link, _, _ in labelled
    ]
    upserted = issues_upsert(records=records)
    ids = dict(Issue.objects.filter(url__in=[link for link, _, _ in labelled]).values_list("url", "pk"))
    study = Study.objects.create(
        name=study_name,
        slug=_slug(study_name),
        description=f"Final labels imported from {path.name}, sheet '{sheet.name}'.",
        taxonomy_version=version,
        raters_per_issue=1,
        blind=False,
        phase=Study.Phase.ADJUDICATION,
        created_by=owner,
    )
    study.dimensions.set([dimensions[key] for key in wanted])
    study_round = StudyRound.objects.create(
        study=study,
        number=1,
        filters={"source": path.name, "sheet": sheet.name},
        size=len(labelled),
        seed=0,
        drawn=len(labelled),
        pool_size=len(labelled),
        created_by=owner,
    )
    study_issues = StudyIssue.objects.bulk_create(
        StudyIssue(study=study, issue_id=ids[link], round=study_round, position=n)
        for n, (link, _, _) in enumerate(labelled, start=1)
    )
    now = timezone.now()
    pairs = [
        (
            Resolution(
                study_issue=si,
                methods=dict.fromkeys(values, Resolution.Method.NEGOTIATED),
                status=Resolution.Status.RESOLVED,
                method=Resolution.Method.NEGOTIATED,
                note=f"Final label: {path.name}, sheet '{sheet.name}', line {line}.",
                decided_by=owner,
                decided_at=now,
            ),
            dict(sorted(values.items())),
        )
        for si, (_, values, line) in zip(study_issues, labelled, strict=True)
    ]
    resolutions = resolutions_bulk_create(pairs, version_id=version.pk)
    ResolutionHistory.objects.bulk_create(
        ResolutionHistory(
            resolution=r,
            actor=owner,
            action=ResolutionHistory.Action.RECORD,
            version=r.version,
            after=resolution_snapshot(r, labels=labels),
        )
        for r, (_, labels) in zip(resolutions, pairs, strict=True)
    )
    return FinalDatasetResult(
        study=study, rows=len(labelled), issues_created=upserted.created, without_link=without_link
    )


def _slug(name: str) -> str:
    base = slugify(name)[:180] or "study"
    slug, n = base, 1
    while Study.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug
