"""The paper's tables of a study, computed from its final labels (resolutions): issues per framework, the
distribution of every dimension overall, per stage and per framework, the symptom -> root cause -> fix
pattern mapping, the share of distributed-specific symptoms, and the raters' agreement per dimension and
round. Each table renders as CSV and a booktabs LaTeX table, and each count table as an SVG and a PNG bar
chart.

Charts never drop a category silently: a table of up to CHART_ALL_BARS rows is charted whole; a longer one
shows its CHART_TOP most frequent rows and one grey "Others" bar summing the rest, and the chart's subtitle
and the table's note say so. Categories of a tree are named by their full path in the mapping table, so
equal names under different parents stay apart.

Works on whatever dimensions the study labels: "per stage" uses the study's ``stage`` dimension when it has
one, else the top level of the dimension's own tree; the mapping chains those of ``symptom``, ``root_cause``
and ``fix_pattern`` the study has (at least two).
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from annotator.exports import booktabs_table, csv_rows
from annotator.exports.charts import (
    BAR_COLOUR,
    OTHERS_COLOUR,
    Chart,
    bar_chart,
    chart_png,
    chart_svg,
    stacked_bar_chart,
)
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
FORMATS = {
    "csv": "text/csv; charset=utf-8",
    "tex": "application/x-tex; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
}
CHART_FORMATS = ("svg", "png")
CHART_ALL_BARS = 80  # a chart this long still reads on one page; a longer one shows its top rows + "Others"
CHART_TOP = 40
OTHERS = "Others"


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
    float_digits: int = 1
    # Any other chart (a box plot, a flow chart): laid out only when a chart is asked for.
    figure: Callable[[], Chart] | None = None

    @property
    def has_chart(self) -> bool:
        return self.bars is not None or self.stacked is not None or self.figure is not None

    def csv(self) -> Iterator[str]:
        return csv_rows(self.header, self.rows)

    def latex(self) -> str:
        return booktabs_table(
            self.header,
            self.rows,
            caption=self.title,
            label=f"tab:{self.slug}",
            group_by=self.group_by,
            float_digits=self.float_digits,
        )

    def chart(self) -> Chart:
        if self.figure is not None:
            return self.figure()
        if self.stacked is not None:
            categories, series = self.stacked
            shown, series, subtitle = chart_top_stacked(categories, series)
            return stacked_bar_chart(shown, series, title=self.title, subtitle=subtitle)
        labels, values = self.bars or ([], [])
        labels, values, subtitle = chart_top(labels, values)
        colours = [OTHERS_COLOUR if i == CHART_TOP and subtitle else BAR_COLOUR for i in range(len(labels))]
        return bar_chart(labels, values, title=self.title, subtitle=subtitle, colours=colours)

    def svg(self) -> str:
        return chart_svg(self.chart())

    def png(self) -> bytes:
        return chart_png(self.chart())


def _others_note(total: int, what: str = "rows") -> str:
    rest = total - CHART_TOP
    return f"The chart shows the {CHART_TOP} largest of {total} {what}; the other {rest} are summed as '{OTHERS}'."


def chart_top(labels: list[str], values: list[float]) -> tuple[list[str], list[float], str]:
    """Every bar when there are at most CHART_ALL_BARS, else the CHART_TOP largest and an "Others" bar."""
    if len(labels) <= CHART_ALL_BARS:
        return list(labels), list(values), ""
    order = sorted(range(len(values)), key=lambda i: -values[i])  # stable: ties keep the table's order
    top = sorted(order[:CHART_TOP])
    rest = sum(values[i] for i in order[CHART_TOP:])
    return [labels[i] for i in top] + [OTHERS], [values[i] for i in top] + [rest], _others_note(len(labels))


def chart_top_stacked(
    categories: list[str], series: dict[str, list[float]]
) -> tuple[list[str], dict[str, list[float]], str]:
    if len(categories) <= CHART_ALL_BARS:
        return list(categories), dict(series), ""
    totals = [sum(values[i] for values in series.values()) for i in range(len(categories))]
    order = sorted(range(len(categories)), key=lambda i: -totals[i])
    top, rest = sorted(order[:CHART_TOP]), order[CHART_TOP:]
    shown = {name: [values[i] for i in top] + [sum(values[i] for i in rest)] for name, values in series.items()}
    return [categories[i] for i in top] + [OTHERS], shown, _others_note(len(categories), "categories")


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


def category_label(info: CategoryInfo | None, pk: int | None) -> str:
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
    ordered = sorted(
        counts.items(), key=lambda item: (-item[1], category_label(categories.get(item[0][0]), item[0][0]))
    )
    rows = []
    for (pk,), n in ordered:
        info = categories.get(pk)
        row = [category_label(info, pk), info.code if info else ""]
        if tree:
            row.append(info.path if info else "")
        rows.append([*row, n, _share(n, total)])
    header = ["Category", "Code", *(["Path"] if tree else []), "Issues", "Share (%)"]
    notes = ["An issue with several categories counts once for each."] if dimension.multi_valued else []
    if len(rows) > CHART_ALL_BARS:
        notes.append(_others_note(len(rows), "categories"))
    return ReportTable(
        slug=f"distribution-{dimension.key}",
        title=f"{dimension.name}: issues per category",
        header=header,
        rows=rows,
        bars=([r[0] for r in rows], [r[-2] for r in rows]),
        note=" ".join(notes),
    )


def cross_table(
    slug: str, title: str, group_header: str, dimension, pairs: Counter, group_name, categories
) -> ReportTable:
    """Rows (group, category, issues) grouped by the first column; stacked bars: one bar per category."""
    by_group: dict[str, Counter] = defaultdict(Counter)
    for (pk, group), n in pairs.items():
        by_group[group_name(group)][pk] += n
    groups = sorted(by_group, key=lambda g: (-sum(by_group[g].values()), g))
    rows = []
    for group in groups:
        for pk, n in sorted(
            by_group[group].items(), key=lambda item: (-item[1], category_label(categories.get(item[0]), item[0]))
        ):
            rows.append([group, category_label(categories.get(pk), pk), n])
    totals: Counter = Counter()
    for counter in by_group.values():
        totals.update(counter)
    shown = [
        pk
        for pk, _ in sorted(
            totals.items(), key=lambda item: (-item[1], category_label(categories.get(item[0]), item[0]))
        )
    ]
    series = {group: [by_group[group].get(pk, 0) for pk in shown] for group in groups}
    return ReportTable(
        slug=slug,
        title=title,
        header=[group_header, dimension.name, "Issues"],
        rows=rows,
        group_by=0,
        stacked=([category_label(categories.get(pk), pk) for pk in shown], series),
        note=_others_note(len(shown), "categories") if len(shown) > CHART_ALL_BARS else "",
    )


def _root_of(categories: dict[int, CategoryInfo]) -> dict[int, str]:
    return {pk: info.path.split(" > ")[0] for pk, info in categories.items()}


def _full_name(info: CategoryInfo | None, pk: int | None, tree: bool) -> str:
    """A category by its full path in a tree ("Parent > Child"), so equal names under two parents differ."""
    if info is not None and tree and info.path:
        return info.path
    return category_label(info, pk)


def _mapping(dimensions, lengths, study, categories, hierarchical) -> ReportTable | None:
    chain = [d for key in MAPPING_CHAIN for d in dimensions if d.key == key]
    if len(chain) < 2:
        return None
    trees = [d.key in hierarchical for d in chain]
    counts = grouped_counts(study=study, keys=[d.key for d in chain], lengths=lengths)

    def names(group) -> list[str]:
        return [_full_name(categories.get(pk), pk, tree) for pk, tree in zip(group, trees, strict=True)]

    ordered = sorted(counts.items(), key=lambda item: (-item[1], names(item[0])))
    rows = [[*names(group), n] for group, n in ordered]
    return ReportTable(
        slug="mapping",
        title=" → ".join(d.name for d in chain) + ": issues per combination",
        header=[*(d.name for d in chain), "Issues"],
        rows=rows,
        bars=([" → ".join(r[:-1]) for r in rows], [r[-1] for r in rows]),
        note=(
            ("Categories are named by their full path. " if any(trees) else "")
            + (_others_note(len(rows), "combinations") if len(rows) > CHART_ALL_BARS else "")
        ).strip(),
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
            name = lambda pk: category_label(categories.get(pk), pk)  # noqa: E731
        elif dimension.key in context.hierarchical:
            pairs = Counter({(pk, pk): n for (pk,), n in single[dimension.key].items()})
            name = lambda pk: roots.get(pk, "")  # noqa: E731
        else:
            continue
        report.tables.append(
            cross_table(
                f"by-stage-{dimension.key}", f"{dimension.name} per stage", "Stage", dimension, pairs, name, categories
            )
        )
    repositories: dict[str, Counter] = {}
    for dimension in dimensions:
        repositories[dimension.key] = grouped_counts(study=study, keys=[dimension.key, REPOSITORY], lengths=lengths)
    names = repository_names(ids={group[1] for c in repositories.values() for group in c})
    for dimension in dimensions:
        report.tables.append(
            cross_table(
                f"by-framework-{dimension.key}",
                f"{dimension.name} per framework",
                "Framework",
                dimension,
                repositories[dimension.key],
                lambda pk: names.get(pk, "(no repository)"),
                categories,
            )
        )
    mapping = _mapping(dimensions, lengths, study, categories, context.hierarchical)
    if mapping is not None:
        report.tables.append(mapping)
    symptom = next((d for d in dimensions if d.key == DISTRIBUTED_DIMENSION), None)
    if symptom is not None:
        report.tables.append(_distributed(symptom, single[symptom.key], categories))
    report.tables.append(_agreement(study))
    return report


def _figure(value) -> float | None:
    """A measure for the table: None (an empty cell, "--" in LaTeX) where it is undefined."""
    return None if value is None or (isinstance(value, float) and value != value) else round(float(value), 3)


def _agreement_row(dimension: str, round_label: str, row: dict) -> list:
    low, high = _figure(row.get("low")), _figure(row.get("high"))
    interval = f"[{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    percent = row.get("percent")
    return [
        dimension,
        round_label,
        row["n"],
        round(100.0 * percent, 1) if percent is not None and percent == percent else None,
        _figure(row.get("kappa")),
        interval,
        _figure(row.get("alpha")),
        _figure(row.get("ac1")),
    ]


def _agreement(study: Study) -> ReportTable:
    """The raters' agreement before discussion (first submissions), per dimension: all rounds, then each round."""
    # Imported here: the agreement report loads the numerical libraries, which only this table needs.
    from annotator.services.agreement.report import agreement_report

    overall = agreement_report(study=study)
    per_round = [
        (entry["number"], agreement_report(study=study, round_number=entry["number"])) for entry in overall["rounds"]
    ]
    rows = []
    for dimension in overall["dimensions"]:
        rows.append(_agreement_row(dimension["name"], "all", dimension["summary"]))
        if len(per_round) > 1:
            for number, report in per_round:
                part = next((d for d in report["dimensions"] if d["key"] == dimension["key"]), None)
                if part is not None:
                    rows.append(_agreement_row(dimension["name"], str(number), part["summary"]))
    return ReportTable(
        slug="agreement",
        title="Agreement between raters before discussion",
        header=["Dimension", "Round", "n", "Agreement (%)", "Cohen's κ", "95% CI", "Krippendorff's α", "Gwet's AC1"],
        rows=rows,
        group_by=0,
        float_digits=2,
        note=(
            "From the raters' first, independent submissions; n is the issues both raters of a pair labelled. "
            "Cohen's κ and its Wald interval for two raters (pooled over pairs otherwise); an empty cell is "
            "undefined for these labels (see the agreement page)."
            + (f" Agreement {overall['subset']['text']}." if overall.get("subset", {}).get("partial") else "")
        ),
    )


def report_table_render(*, table: ReportTable, fmt: str) -> str | bytes | Iterator[str]:
    if fmt not in FORMATS:
        raise NotFoundError(f"Tables download as {', '.join(FORMATS)}; '{fmt}' is not one of them.")
    if fmt in CHART_FORMATS and not table.has_chart:
        raise NotFoundError(f"The table '{table.slug}' has no chart; download it as CSV or LaTeX.")
    if fmt == "csv":
        return table.csv()
    if fmt == "tex":
        return table.latex()
    if fmt == "svg":
        return table.svg()
    return table.png()


def report_as_json(report: StudyReport) -> dict[str, Any]:
    return {
        "study": report.study.pk,
        "issues": report.issues,
        "tables": [
            {"slug": t.slug, "title": t.title, "header": t.header, "rows": t.rows, "note": t.note}
            for t in report.tables
        ],
    }
