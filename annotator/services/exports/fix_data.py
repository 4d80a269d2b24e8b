"""The fix data of a study as a tidy table: one row per issue with a final label, its final categories per
dimension and its fix measures, so every findings figure can be recomputed in pandas or R.

Columns: issue_url, framework, number, then ``<dimension>`` (category codes, "; " between several) and
``<dimension>_name`` per dimension, then the measures (empty where unknown): has_fix, fixes, additions,
deletions, lines_changed, files, components ("; " between several), unmapped_files, hours_to_fix,
hours_to_close, comments, participants, files_complete. Rows are read in chunks of issues: memory stays bounded.
"""

from collections.abc import Iterator
from typing import Any

from annotator.models import Issue

from .context import LIST_SEPARATOR, ExportContext
from .rows import CHUNK_SIZE

MEASURE_COLUMNS = (
    "has_fix",
    "fixes",
    "additions",
    "deletions",
    "lines_changed",
    "files",
    "components",
    "unmapped_files",
    "hours_to_fix",
    "hours_to_close",
    "comments",
    "participants",
    "files_complete",
)
README_LINES = (
    "`data/fixes.csv` is the fix data, tidy: one row per issue with a final label (resolved, not excluded). "
    "Columns: `issue_url`, `framework`, `number`; per dimension its category codes (`<dimension>`) and names "
    "(`<dimension>_name`), several joined by `; `; then the fix measures: `has_fix` (a fixing change is linked), "
    "`fixes` (fixing changes with fix details), `additions`, `deletions`, `lines_changed` (additions + deletions), "
    "`files`, `components` (`; `-joined), `unmapped_files` (files no component rule covers), `hours_to_fix` "
    "(issue opened to the last fix merged), `hours_to_close`, `comments`, `participants`, `files_complete` (false "
    "when GitHub listed only part of a fixing change's files, at most 3,000 a change: `files` is then GitHub's "
    "total for a pull request and at least the listed count for a commit). An empty cell is "
    "unknown (no fix details). The findings tables of the report are computed from exactly these columns.",
)


def fix_data_header(context: ExportContext) -> list[str]:
    dimensions = [d.key for d in context.dimensions]
    return [
        "issue_url",
        "framework",
        "number",
        *(column for key in dimensions for column in (key, f"{key}_name")),
        *MEASURE_COLUMNS,
    ]


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return LIST_SEPARATOR.join(value)
    return "" if value is None else value


def fix_data_rows(context: ExportContext) -> Iterator[list[Any]]:
    # Imported here: the fix-measures selector is only needed when the package is built.
    from annotator.selectors.fixes import issue_fixes
    from annotator.selectors.report import final_label_sets, repository_names

    keys = [d.key for d in context.dimensions]
    sets = final_label_sets(study=context.study, keys=keys)
    names = repository_names(ids={repository for repository, _labels in sets.values()})
    ids = sorted(sets)
    for start in range(0, len(ids), CHUNK_SIZE):
        chunk = ids[start : start + CHUNK_SIZE]
        fixes = issue_fixes(chunk)
        issues = {
            pk: (url, number)
            for pk, url, number in Issue.objects.filter(pk__in=chunk).values_list("pk", "url", "number")
        }
        for issue_id in chunk:
            repository, labels = sets[issue_id]
            url, number = issues[issue_id]
            row: list[Any] = [url, names.get(repository, names[None]), number]
            for key in keys:
                row.append(LIST_SEPARATOR.join(context.codes(labels.get(key))))
                row.append(LIST_SEPARATOR.join(context.names(labels.get(key))))
            fix = fixes.get(issue_id)
            row += [_cell(getattr(fix, column, None)) for column in MEASURE_COLUMNS]
            yield row
