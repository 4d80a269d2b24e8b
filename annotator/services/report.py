"""The paper's tables of a study, computed from its final labels (resolutions): issues per framework, the
distribution of every dimension overall, per stage and per framework, the symptom -> root cause -> fix
pattern mapping, and the share of distributed-specific symptoms. Each table renders as CSV, a booktabs
LaTeX table and an SVG bar chart.

Works on whatever dimensions the study labels: "per stage" uses the study's ``stage`` dimension when it has
one, else the top level of the dimension's own tree; the mapping chains those of ``symptom``, ``root_cause``
and ``fix_pattern`` the study has (at least two).
"""

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from annotator.exports import bar_chart_svg, booktabs_table, csv_rows, stacked_bar_svg
from annotator.models import Study
from annotator.selectors.report import (
    REPOSITORY,
    final_count,
    grouped_counts,
    issues_per_repository,
    repository_names,
    value_lengths,
)
from annotator.services.exports.context import CategoryInfo, export_context
from core.errors import NotFoundError

STAGE = "stage"
MAPPING_CHAIN = ("symptom", "root_cause", "fix_pattern")
DISTRIBUTED_DIMENSION = "symptom"
FORMATS = {"csv": "text/csv; charset=utf-8", "tex": "application/x-tex; charset=utf-8", "svg": "image/svg+xml"}
CHART_BARS = 40  # longer tables are charted by their most frequent rows


@dataclass
class ReportTable:
    slug: str
    title: str
    header: list[str]
    rows: list[list[Any]]
    group_by: int | None = None
    # (labels, values) for a bar chart, or (categories, {series: values}) for stacked bars.
    bars: tuple[list[str], list[float]] | None = None
    stacked: tuple[list[str], dict[str, list[float]]] | None = None
    note: str = ""

    def csv(self) -> Iterator[str]:
        return csv_rows(self.header, self.rows)

    def latex(self) -> str:
        return booktabs_table(
            self.header, self.rows, caption=self.title, label=f"tab:{self.slug}", group_by=self.group_by, float_digits=1
        )

    def svg(self) -> str:
        if self.stacked is not None:
            categories, series = self.stacked
            return stacked_bar_svg(categories, series, title=self.title)
        labels, values = self.bars or ([], [])
        return bar_chart_svg(labels, values, title=self.title)


@dataclass
class StudyReport:
    study: Study
    issues: int
    tables: list[ReportTable] = field(default_factory=list)

    def table(self, slug: str) -> ReportTable:
        for table in self.tables:
            if table.slug == slug:
                return table
        raise NotFoundError(f"This study's report has no table '{slug}'; its tables are listed on the report page.")


def _share(n: int, total: int) -> float:
    return round(100.0 * n / total, 1) if total else 0.0


def _label(info: CategoryInfo | None, pk: int | None) -> str:
    return info.name if info else f"category {pk}"


def _frameworks(study: Study, total: int) -> ReportTable:
    rows = [
        [str(repo) if repo else "(no repository)", n, _share(n, total)]
        for repo, n in issues_per_repository(study=study)
    ]
    return ReportTable(
        slug="frameworks",
        title="Issues per framework",
        header=["Framework", "Issues", "Share (%)"],
        rows=rows,
        bars=([r[0] for r in rows], [r[1] for r in rows]),
    )


def _distribution(dimension, counts: Counter, categories: dict[int, CategoryInfo], total: int, tree: bool):
    ordered = sorted(counts.items(), key=lambda item: (-item[1], _label(categories.get(item[0][0]), item[0][0])))
    rows = []
    for (pk,), n in ordered:
        info = categories.get(pk)
        row = [_label(info, pk), info.code if info else ""]
        if tree:
            row.append(info.path if info else "")
        rows.append([*row, n, _share(n, total)])
    header = ["Category", "Code", *(["Path"] if tree else []), "Issues", "Share (%)"]
    shown = rows[:CHART_BARS]
    return ReportTable(
        slug=f"distribution-{dimension.key}",
        title=f"{dimension.name}: issues per category",
        header=header,
        rows=rows,
        bars=([r[0] for r in shown], [r[-2] for r in shown]),
        note="An issue with several categories counts once for each." if dimension.multi_valued else "",
    )


def _cross(slug: str, title: str, group_header: str, dimension, pairs: Counter, group_name, categories) -> ReportTable:
    """Rows (group, category, issues) grouped by the first column; stacked bars: one bar per category."""
    by_group: dict[str, Counter] = defaultdict(Counter)
    for (pk, group), n in pairs.items():
        by_group[group_name(group)][pk] += n
    groups = sorted(by_group, key=lambda g: (-sum(by_group[g].values()), g))
    rows = []
    for group in groups:
        for pk, n in sorted(
            by_group[group].items(), key=lambda item: (-item[1], _label(categories.get(item[0]), item[0]))
        ):
            rows.append([group, _label(categories.get(pk), pk), n])
    totals: Counter = Counter()
    for counter in by_group.values():
        totals.update(counter)
    shown = [pk for pk, _ in totals.most_common(CHART_BARS)]
    series = {group: [by_group[group].get(pk, 0) for pk in shown] for group in groups}
    return ReportTable(
        slug=slug,
        title=title,
        header=[group_header, dimension.name, "Issues"],
        rows=rows,
        group_by=0,
        stacked=([_label(categories.get(pk), pk) for pk in shown], series),
    )


def _root_of(categories: dict[int, CategoryInfo]) -> dict[int, str]:
    return {pk: info.path.split(" > ")[0] for pk, info in categories.items()}


def _mapping(dimensions, lengths, study, categories) -> ReportTable | None:
    chain = [d for key in MAPPING_CHAIN for d in dimensions if d.key == key]
    if len(chain) < 2:
        return None
    counts = grouped_counts(study=study, keys=[d.key for d in chain], lengths=lengths)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], [_label(categories.get(pk), pk) for pk in item[0]]))
    rows = [[*(_label(categories.get(pk), pk) for pk in group), n] for group, n in ordered]
    shown = rows[:CHART_BARS]
    return ReportTable(
        slug="mapping",
        title=" → ".join(d.name for d in chain) + ": issues per combination",
        header=[*(d.name for d in chain), "Issues"],
        rows=rows,
        bars=([" → ".join(r[:-1]) for r in shown], [r[-1] for r in shown]),
    )


def _distributed(dimension, counts: Counter, categories: dict[int, CategoryInfo]) -> ReportTable:
    flags = {pk: categories[pk].distributed_specific if pk in categories else None for (pk,) in counts}
    used = Counter(flags.values())
    issues: Counter = Counter()
    for (pk,), n in counts.items():
        issues[flags[pk]] += n

    def row(measure: str, tally: Counter) -> list:
        known = tally[True] + tally[False]
        return [measure, tally[True], tally[False], tally[None], _share(tally[True], known)]

    rows = [row(f"{dimension.name} categories used", used), row("Issues (per category label)", issues)]
    return ReportTable(
        slug="distributed",
        title=f"Distributed-specific {dimension.name.lower()}s",
        header=["Measure", "Distributed-specific", "Not distributed-specific", "Unknown", "Share (%)"],
        rows=rows,
        bars=(["distributed-specific", "not distributed-specific", "unknown"], [used[True], used[False], used[None]]),
        note="The share is over the categories (or issues) whose flag is known.",
    )


def study_report(*, study: Study) -> StudyReport:
    """Every table of the study's report. Query count depends on the dimensions, not on the issues."""
    context = export_context(study=study, pseudonymous=True)
    dimensions, categories = context.dimensions, context.categories
    total = final_count(study=study)
    report = StudyReport(study=study, issues=total)
    report.tables.append(_frameworks(study, total))
    keys = [d.key for d in dimensions]
    lengths = value_lengths(study=study, keys=keys)
    single: dict[str, Counter] = {d.key: grouped_counts(study=study, keys=[d.key], lengths=lengths) for d in dimensions}
    for dimension in dimensions:
        tree = dimension.key in context.hierarchical
        report.tables.append(_distribution(dimension, single[dimension.key], categories, total, tree))
    stage = next((d for d in dimensions if d.key == STAGE), None)
    roots = _root_of(categories)
    for dimension in dimensions:
        if dimension.key == STAGE:
            continue
        if stage is not None:
            pairs = grouped_counts(study=study, keys=[dimension.key, STAGE], lengths=lengths)
            name = lambda pk: _label(categories.get(pk), pk)  # noqa: E731
        elif dimension.key in context.hierarchical:
            pairs = Counter({(pk, pk): n for (pk,), n in single[dimension.key].items()})
            name = lambda pk: roots.get(pk, "")  # noqa: E731
        else:
            continue
        report.tables.append(
            _cross(
                f"by-stage-{dimension.key}", f"{dimension.name} per stage", "Stage", dimension, pairs, name, categories
            )
        )
    repositories: dict[str, Counter] = {}
    for dimension in dimensions:
        repositories[dimension.key] = grouped_counts(study=study, keys=[dimension.key, REPOSITORY], lengths=lengths)
    names = repository_names(ids={group[1] for c in repositories.values() for group in c})
    for dimension in dimensions:
        report.tables.append(
            _cross(
                f"by-framework-{dimension.key}",
                f"{dimension.name} per framework",
                "Framework",
                dimension,
                repositories[dimension.key],
                lambda pk: names.get(pk, "(no repository)"),
                categories,
            )
        )
    mapping = _mapping(dimensions, lengths, study, categories)
    if mapping is not None:
        report.tables.append(mapping)
    symptom = next((d for d in dimensions if d.key == DISTRIBUTED_DIMENSION), None)
    if symptom is not None:
        report.tables.append(_distributed(symptom, single[symptom.key], categories))
    return report


def report_table_render(*, table: ReportTable, fmt: str) -> str | Iterator[str]:
    if fmt == "csv":
        return table.csv()
    if fmt == "tex":
        return table.latex()
    if fmt == "svg":
        return table.svg()
    raise NotFoundError(f"Tables download as {', '.join(FORMATS)}; '{fmt}' is not one of them.")


def report_as_json(report: StudyReport) -> dict[str, Any]:
    return {
        "study": report.study.pk,
        "issues": report.issues,
        "tables": [
            {"slug": t.slug, "title": t.title, "header": t.header, "rows": t.rows, "note": t.note}
            for t in report.tables
        ],
    }
