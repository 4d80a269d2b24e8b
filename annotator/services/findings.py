"""The study's findings: its final labels joined with the fix measures of each issue, as report tables.

Sections (each a ReportTable: page, API, CSV, LaTeX, and an SVG/PNG chart where it has one):
- fix size and time to fix per category of each dimension (stage, symptom, root cause, fix pattern) and per
  framework: n, median, IQR, the share of fixes of at most 10 lines, as box-and-strip plots;
- components x root cause and components x symptom;
- the share of distributed-specific categories, overall and per stage;
- symptom -> root cause -> fix pattern flows, as a Sankey-style chart and the counts table;
- the tests: framework x category independence per dimension, and differences of fix size and time across
  categories (Kruskal-Wallis, then pairwise Mann-Whitney where the omnibus test is significant after correction),
  each with n, the exact test used, its statistic, df, p, corrected p, effect size and magnitude.

An issue with several categories in a dimension counts once for each (as in the papers' tables, and said in the
notes). Issues without fix data count in the label tables but not in the fix measures. The numbers come from
``findings_from_rows`` over plain rows, so they can be checked without a database.
"""

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from annotator.exports.distribution_chart import box_strip_chart
from annotator.exports.flow_chart import flow_chart
from annotator.findings.summaries import SMALL_FIX_LOC, share_at_most, summarise
from annotator.services.exports.context import CategoryInfo
from annotator.services.report import MAPPING_CHAIN, STAGE, ReportTable, category_label, cross_table
from core.errors import NotFoundError

FRAMEWORK = "framework"
FINDINGS_DIMENSIONS = ("stage", "symptom", "root_cause", "fix_pattern")
COMPONENT_DIMENSIONS = ("root_cause", "symptom")
SIGNIFICANCE = 0.05
# Benjamini-Hochberg over every family: statsmodels' Holm branch runs a full gc.collect() on each call, whose
# cost grows with every object the process holds (a report holds one row per issue); BH's does not.
CORRECTION = "fdr_bh"
MIN_PAIRWISE = 5  # a category with fewer fixes than this takes no part in the pairwise tests
NO_COMPONENT = "(no mapped component)"
UNLABELLED = object()  # an issue without a category in the dimension: not counted in its shares
MEASURES = {
    "size": ("lines_changed", "Lines changed (additions + deletions)", "fix size"),
    "time": ("hours_to_fix", "Hours from the issue's opening to the fix merged", "time to fix"),
}
TEST_HEADER = [
    "Family",
    "Comparison",
    "Test",
    "n",
    "Statistic",
    "df",
    "p",
    "Corrected p",
    "Correction",
    "Effect size",
    "Value",
    "Magnitude",
]


@dataclass(frozen=True, slots=True)
class FindingsRow:
    """One issue with a final label: its framework, categories per dimension and fix measures (None: no fix data)."""

    issue_id: int
    framework: str
    labels: dict[str, tuple[int, ...]]
    measures: Any = None

    def value(self, attribute: str) -> float | None:
        """A fix measure, None when the issue has no measured fix (no linked change with fix details)."""
        if self.measures is None or getattr(self.measures, "lines_changed", None) is None:
            return None
        value = getattr(self.measures, attribute, None)
        return None if value is None else float(value)


@dataclass(frozen=True, slots=True)
class FamilyResult:
    """One statistical result and the family it was corrected in (e.g. "fix size by root cause")."""

    family: str
    result: Any  # annotator.findings.statistics.StatResult


@dataclass
class Findings:
    issues: int
    with_fix: int
    tables: list[ReportTable] = field(default_factory=list)
    tests: list[FamilyResult] = field(default_factory=list)

    def table(self, slug: str) -> ReportTable:
        for table in self.tables:
            if table.slug == slug:
                return table
        raise NotFoundError(f"This study's findings have no table '{slug}'; its tables are listed on the report page.")


@dataclass(frozen=True, slots=True)
class Grouping:
    key: str  # a dimension key or FRAMEWORK
    name: str  # "Root cause", "Framework"

    def groups(self, row: FindingsRow) -> Iterable[object]:
        return (row.framework,) if self.key == FRAMEWORK else row.labels.get(self.key, ())


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def p_text(value: float | None) -> str:
    """A p-value for a table: three significant digits, small ones in e-notation; empty when undefined."""
    if value is None or math.isnan(value):
        return ""
    return f"{value:.3g}" if value >= 0.001 else f"{value:.2e}"


def _figure(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 3)


def _ordered_groups(values: dict[object, list[float]], name: Callable[[object], str]) -> list[object]:
    return sorted(values, key=lambda g: (-len(values[g]), name(g)))


def _statistics_line(result) -> str:
    if not result.defined:
        return f"{result.test}: not computed ({result.note})"
    df = f", df = {result.df}" if result.df is not None else ""
    corrected = f", {result.correction}: p = {p_text(result.p_corrected)}" if result.p_corrected is not None else ""
    return (
        f"{result.test}: statistic = {result.statistic:.3f}{df}, p = {p_text(result.p)}{corrected}, "
        f"{result.effect_name} = {result.effect_size:.3f} ({result.magnitude}), n = {result.n}."
    )


class _Builder:
    """Builds every findings table from plain rows; ``name(grouping, group)`` names a category or framework."""

    def __init__(self, rows: Sequence[FindingsRow], dimensions, categories: dict[int, CategoryInfo], seed: int):
        self.rows = rows
        self.dimensions = {d.key: d for d in dimensions}
        self.categories = categories
        self.seed = seed
        self.flags = {pk: info.distributed_specific for pk, info in categories.items()}
        self.with_fix = [row for row in rows if row.value("lines_changed") is not None]
        self.groupings = [Grouping(k, self.dimensions[k].name) for k in FINDINGS_DIMENSIONS if k in self.dimensions]
        self.groupings.append(Grouping(FRAMEWORK, "Framework"))
        # Each row's measures read once, and each grouping's members listed once: the tables then only index.
        attributes = {"lines_changed", "hours_to_fix", "files", "hours_to_close", "comments"}
        self.measured = {name: [row.value(name) for row in rows] for name in attributes}
        self.members: dict[str, dict[object, list[int]]] = {}
        for grouping in self.groupings:
            members: dict[object, list[int]] = defaultdict(list)
            for index, row in enumerate(rows):
                for group in grouping.groups(row):
                    members[group].append(index)
            self.members[grouping.key] = members

    def grouped(self, grouping: Grouping, attribute: str) -> dict[object, list[float]]:
        """Per group, the known values of ``attribute`` (a group whose issues have no fix data gets [])."""
        measured = self.measured[attribute]
        return {
            group: [measured[i] for i in indices if measured[i] is not None]
            for group, indices in self.members[grouping.key].items()
        }

    def name(self, grouping: Grouping, group: object) -> str:
        if grouping.key == FRAMEWORK:
            return str(group)
        return category_label(self.categories.get(group), group)

    def named(self, grouping: Grouping, values: dict[object, list[float]]) -> dict[str, list[float]]:
        """The groups by name, largest first; two categories of one name (in two branches) keep their codes."""
        order = _ordered_groups(values, lambda g: self.name(grouping, g))
        names = Counter(self.name(grouping, g) for g in order)
        named = {}
        for group in order:
            name = self.name(grouping, group)
            if names[name] > 1 and group in self.categories:
                name = f"{name} [{self.categories[group].code}]"
            named[name] = values[group]
        return named

    # ----------------------------------------------------------------- fix size and time per group

    def measure_tables(self, measure: str, omnibus: dict[str, Any]) -> list[ReportTable]:
        attribute, axis, what = MEASURES[measure]
        tables = []
        for grouping in self.groupings:
            values = self.grouped(grouping, attribute)
            others = {name: self.grouped(grouping, name) for name in ("files", "hours_to_close", "comments")}
            order = _ordered_groups(values, lambda g, grouping=grouping: self.name(grouping, g))
            issues = {group: len(indices) for group, indices in self.members[grouping.key].items()}
            rows = []
            for group in order:
                summary = summarise(values[group])
                row = [self.name(grouping, group), issues[group], summary.n]
                row += [_round(summary.median), _round(summary.q1), _round(summary.q3)]
                if measure == "size":
                    row.append(_round(share_at_most(values[group], SMALL_FIX_LOC)))
                    row.append(_round(summarise(others["files"][group]).median))
                else:
                    row.append(_round(summarise(others["hours_to_close"][group]).median))
                    row.append(_round(summarise(others["comments"][group]).median))
                rows.append(row)
            header = [grouping.name, "Issues", "With fix data", "Median", "Q1", "Q3"]
            header += [f"≤ {SMALL_FIX_LOC} LOC (%)", "Median files"] if measure == "size" else []
            header += ["Median hours to close", "Median comments"] if measure == "time" else []
            result = omnibus.get(grouping.key)
            note = [f"{axis}: median and quartiles (R's type 7) over the issues with fix data."]
            if grouping.key != FRAMEWORK and self.dimensions[grouping.key].multi_valued:
                note.append("An issue with several categories counts once for each.")
            if result is not None:
                note.append(_statistics_line(result))
            groups = [(self.name(grouping, g), values[g]) for g in order]
            title = f"{what.capitalize()} by {grouping.name.lower()}"
            tables.append(
                ReportTable(
                    slug=f"findings-{measure}-{grouping.key}",
                    title=title,
                    header=header,
                    rows=rows,
                    note=" ".join(note),
                    figure=lambda groups=groups, title=title, axis=axis: box_strip_chart(
                        groups, title=title, axis_label=axis
                    ),
                )
            )
        return tables

    # ----------------------------------------------------------------- tests

    def difference_tests(self) -> tuple[list[FamilyResult], dict[str, dict[str, Any]]]:
        from annotator.findings.statistics import corrected, kruskal_wallis, pairwise_mann_whitney

        results: list[FamilyResult] = []
        omnibus_by_measure: dict[str, dict[str, Any]] = {}
        for measure, (attribute, _axis, what) in MEASURES.items():
            omnibus = []
            samples = {}
            for grouping in self.groupings:
                values = self.grouped(grouping, attribute)
                named = self.named(grouping, values)
                samples[grouping.key] = named
                omnibus.append(kruskal_wallis(named, subject=f"{what} by {grouping.name.lower()}"))
            omnibus = corrected(omnibus, method=CORRECTION)
            omnibus_by_measure[measure] = {g.key: r for g, r in zip(self.groupings, omnibus, strict=True)}
            results += [FamilyResult(f"{what}: Kruskal–Wallis per grouping", r) for r in omnibus]
            for grouping, result in zip(self.groupings, omnibus, strict=True):
                if not result.defined or result.p_corrected is None or result.p_corrected >= SIGNIFICANCE:
                    continue
                eligible = {k: v for k, v in samples[grouping.key].items() if len(v) >= MIN_PAIRWISE}
                family = f"{what} by {grouping.name.lower()}: pairwise"
                pairs = pairwise_mann_whitney(eligible, method=CORRECTION)
                results += [FamilyResult(family, r) for r in pairs]
        return results, omnibus_by_measure

    def independence_tests(self) -> list[FamilyResult]:
        from annotator.findings.statistics import corrected, independence

        frameworks = sorted({row.framework for row in self.rows})
        results = []
        for grouping in self.groupings:
            if grouping.key == FRAMEWORK:
                continue
            counts: Counter = Counter()
            for row in self.rows:
                for group in grouping.groups(row):
                    counts[(row.framework, group)] += 1
            columns = sorted({g for _f, g in counts}, key=lambda g: self.name(grouping, g))
            table = [[counts[(f, g)] for g in columns] for f in frameworks]
            subject = f"framework × {grouping.name.lower()}"
            results.append(independence(table, subject=subject, seed=self.seed) if table else None)
        results = corrected([r for r in results if r is not None], method=CORRECTION)
        return [FamilyResult("framework × category independence", r) for r in results]

    # ----------------------------------------------------------------- components, distributed, flows

    def component_tables(self) -> list[ReportTable]:
        tables = []
        for key in COMPONENT_DIMENSIONS:
            if key not in self.dimensions:
                continue
            dimension = self.dimensions[key]
            pairs: Counter = Counter()
            for row in self.with_fix:
                components = tuple(getattr(row.measures, "components", ()) or ()) or (NO_COMPONENT,)
                for pk, component in product(row.labels.get(key, ()), components):
                    pairs[(pk, component)] += 1
            table = cross_table(
                f"findings-components-{key}",
                f"Components × {dimension.name.lower()}",
                "Component",
                dimension,
                pairs,
                str,
                self.categories,
            )
            table.note = " ".join(
                part
                for part in (
                    "Issues with fix data; a fix touching several components counts once for each, "
                    f"a fix none of whose paths is mapped counts as '{NO_COMPONENT}'.",
                    table.note,
                )
                if part
            )
            tables.append(table)
        return tables

    def distributed_table(self) -> ReportTable:
        flagged = [
            key
            for key in self.dimensions
            if key != STAGE
            and any(
                info.dimension_key == key and info.distributed_specific is not None for info in self.categories.values()
            )
        ]
        # The issues of each stage (all issues first), by row index; the stages largest first.
        issue_groups: list[tuple[str, list[int]]] = [("All stages", list(range(len(self.rows))))]
        stages = self.members.get(STAGE, {}) if STAGE in self.dimensions else {}
        for pk in sorted(stages, key=lambda pk: (-len(stages[pk]), category_label(self.categories.get(pk), pk))):
            issue_groups.append((category_label(self.categories.get(pk), pk), stages[pk]))
        rows: list[list] = []
        shares: tuple[list[str], list[float]] = ([], [])
        for key in flagged:
            name = self.dimensions[key].name
            used = {pk for row in self.rows for pk in row.labels.get(key, ())}
            tally = Counter(self.flags.get(pk) for pk in used)
            rows.append(self._share_row(name, "All stages", "categories used", tally))
            flags = [self._issue_flag(row, key) if row.labels.get(key) else UNLABELLED for row in self.rows]
            for stage_name, members in issue_groups:
                tally = Counter(flags[i] for i in members if flags[i] is not UNLABELLED)
                rows.append(self._share_row(name, stage_name, "issues", tally))
                shares[0].append(f"{name} · {stage_name}")
                shares[1].append(rows[-1][-1] or 0.0)
        return ReportTable(
            slug="findings-distributed",
            title="Distributed-specific categories, overall and per stage",
            header=["Dimension", "Stage", "Counted", "Distributed-specific", "Not", "Unknown", "Share (%)"],
            rows=rows,
            group_by=0,
            bars=shares,
            note=(
                (
                    "No category of this taxonomy carries the distributed-specific flag yet: set it on the "
                    "categories (taxonomy template or admin) to get these shares. "
                    if not flagged
                    else ""
                )
                + "A category is distributed-specific when the taxonomy flags it so (the category's "
                "distributed_specific attribute). An issue counts as distributed-specific in a dimension when any "
                "of its categories there is; as not when every one is flagged not; else as unknown. The share is "
                "over the known ones. Per stage: the issues labelled with that stage."
            ),
        )

    def _issue_flag(self, row: FindingsRow, key: str) -> bool | None:
        flags = [self.flags.get(pk) for pk in row.labels[key]]
        if any(flag is True for flag in flags):
            return True
        return False if flags and all(flag is False for flag in flags) else None

    @staticmethod
    def _share_row(dimension: str, stage: str, counted: str, tally: Counter) -> list:
        known = tally[True] + tally[False]
        share = round(100.0 * tally[True] / known, 1) if known else None
        return [dimension, stage, counted, tally[True], tally[False], tally[None], share]

    def flow_table(self) -> ReportTable | None:
        chain = [key for key in MAPPING_CHAIN if key in self.dimensions]
        if len(chain) < 2:
            return None
        counts: Counter = Counter()
        for row in self.rows:
            if all(row.labels.get(key) for key in chain):
                for group in product(*(sorted(row.labels[key]) for key in chain)):
                    counts[group] += 1
        names = [[category_label(self.categories.get(pk), pk) for pk in group] for group in counts]
        flows = sorted(zip(names, counts.values(), strict=True), key=lambda item: (-item[1], item[0]))
        columns = [self.dimensions[key].name for key in chain]
        title = ", ".join(columns[:-1]) + f" and {columns[-1].lower()}: flows"
        return ReportTable(
            slug="findings-flows",
            title=title,
            header=[*columns, "Issues"],
            rows=[[*path, n] for path, n in flows],
            note="Issues labelled in every one of these dimensions; an issue with several categories in a "
            "dimension counts once for each combination.",
            figure=lambda: flow_chart([(tuple(p), n) for p, n in flows], columns=columns, title=title),
        )


def _test_rows(results: Sequence[FamilyResult]) -> list[list]:
    rows = []
    for item in results:
        r = item.result
        rows.append(
            [
                item.family,
                r.subject,
                r.test,
                r.n,
                _figure(r.statistic),
                r.df,
                p_text(r.p),
                p_text(r.p_corrected),
                r.correction,
                r.effect_name,
                _figure(r.effect_size),
                r.magnitude or (r.note if not r.defined else ""),
            ]
        )
    return rows


def findings_from_rows(
    rows: Sequence[FindingsRow], *, dimensions, categories: dict[int, CategoryInfo], seed: int
) -> Findings:
    """Every findings table from plain rows: ``dimensions`` have key, name, multi_valued; ``categories`` by id."""
    builder = _Builder(rows, dimensions, categories, seed)
    findings = Findings(issues=len(rows), with_fix=len(builder.with_fix))
    differences, omnibus = builder.difference_tests()
    independence = builder.independence_tests()
    for measure in MEASURES:
        findings.tables += builder.measure_tables(measure, omnibus[measure])
    findings.tables += builder.component_tables()
    findings.tables.append(builder.distributed_table())
    flows = builder.flow_table()
    if flows is not None:
        findings.tables.append(flows)
    findings.tables.append(
        ReportTable(
            slug="findings-independence",
            title="Is the category independent of the framework?",
            header=TEST_HEADER,
            rows=_test_rows(independence),
            group_by=0,
            note=(
                "Per dimension, the framework x category table of issues (an issue with several categories "
                "counts once for each). Pearson's chi-square unless more than 20% of the expected counts are "
                "below 5; then Fisher's exact test (2x2) or a seeded Monte-Carlo chi-square test. Cramér's V "
                "with Cohen's benchmarks; Benjamini–Hochberg correction over the dimensions."
            ),
        )
    )
    findings.tables.append(
        ReportTable(
            slug="findings-differences",
            title="Do fix size and time to fix differ across categories?",
            header=TEST_HEADER,
            rows=_test_rows(differences),
            group_by=0,
            note=(
                "Kruskal–Wallis H per grouping with epsilon² (Benjamini–Hochberg over the groupings of one measure); "
                "where its "
                f"corrected p is below {SIGNIFICANCE}, two-sided Mann–Whitney U tests between every pair of "
                f"categories with at least {MIN_PAIRWISE} fixes, with Cliff's delta (Romano et al. 2006 "
                "magnitudes) and Benjamini–Hochberg correction over the pairs."
            ),
        )
    )
    findings.tests = independence + differences
    return findings


def findings_as_json(findings: Findings, study_pk: int) -> dict[str, Any]:
    return {
        "study": study_pk,
        "issues": findings.issues,
        "issues_with_fix": findings.with_fix,
        "tables": [
            {"slug": t.slug, "title": t.title, "header": t.header, "rows": t.rows, "note": t.note}
            for t in findings.tables
        ],
    }


def stat_as_json(item: FamilyResult) -> dict[str, Any]:
    r = item.result
    return {
        "family": item.family,
        "subject": r.subject,
        "test": r.test,
        "n": r.n,
        "statistic": _figure(r.statistic),
        "df": r.df,
        "p": None if math.isnan(r.p) else r.p,
        "p_corrected": r.p_corrected,
        "correction": r.correction,
        "effect_name": r.effect_name,
        "effect_size": _figure(r.effect_size),
        "magnitude": r.magnitude,
        "note": r.note,
    }


FINDINGS_PREFIX = "findings-"


def study_findings(*, study) -> Findings:
    """The findings of a study from its final labels and its fixes' measures; queries do not grow with the study."""
    from annotator.selectors.fixes import issue_fixes
    from annotator.selectors.report import final_label_sets, repository_names
    from annotator.services.exports.context import export_context

    context = export_context(study=study, pseudonymous=True)
    sets = final_label_sets(study=study, keys=[d.key for d in context.dimensions])
    names = repository_names(ids={repository for repository, _labels in sets.values()})
    measures = issue_fixes(sets.keys())
    rows = [
        FindingsRow(
            issue_id,
            names.get(repository, names[None]),
            {k: tuple(v) for k, v in labels.items()},
            measures.get(issue_id),
        )
        for issue_id, (repository, labels) in sorted(sets.items())
    ]
    from annotator.findings.statistics import DEFAULT_SEED

    return findings_from_rows(rows, dimensions=context.dimensions, categories=context.categories, seed=DEFAULT_SEED)
