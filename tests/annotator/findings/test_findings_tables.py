"""The findings tables from plain rows: fix size and time per category and framework, components, distributed
shares, flows and the tests, each figure checked by hand."""

import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from annotator.selectors.fixes import IssueFix
from annotator.services.exports.context import CategoryInfo
from annotator.services.findings import NO_COMPONENT, FindingsRow, findings_from_rows

SVG = "{http://www.w3.org/2000/svg}"


def Measures(
    lines_changed,
    files=1,
    components=(),
    hours_to_fix=None,
    hours_to_close=None,
    comments=0,
    participants=1,
    has_fix=True,
):
    """One issue's IssueFix (the fix-measures selector's row); ``lines_changed`` None: no fix details."""
    measured = lines_changed is not None
    return IssueFix(
        issue_id=0,
        repository_id=None,
        has_fix=has_fix,
        fixes=1 if measured else 0,
        additions=lines_changed,
        deletions=0 if measured else None,
        lines_changed=lines_changed,
        files=files if measured else None,
        files_complete=True if measured else None,
        components=tuple(components),
        unmapped_files=0 if measured else None,
        hours_to_fix=hours_to_fix,
        hours_to_close=hours_to_close,
        comments=comments,
        participants=participants,
    )


DIMENSIONS = [
    SimpleNamespace(key="stage", name="Stage", multi_valued=False),
    SimpleNamespace(key="symptom", name="Symptom", multi_valued=False),
    SimpleNamespace(key="root_cause", name="Root cause", multi_valued=True),
    SimpleNamespace(key="fix_pattern", name="Fix pattern", multi_valued=False),
]
CATEGORIES = {
    1: CategoryInfo("train", "Training", "Training", "stage", None),
    2: CategoryInfo("init", "Initialisation", "Initialisation", "stage", None),
    10: CategoryInfo("hang", "Hang", "Hang", "symptom", True),
    11: CategoryInfo("crash", "Crash", "Crash", "symptom", False),
    20: CategoryInfo("nccl", "NCCL misuse", "NCCL misuse", "root_cause", True),
    21: CategoryInfo("config", "Configuration", "Configuration", "root_cause", None),
    30: CategoryInfo("upgrade", "Upgrade dependency", "Upgrade dependency", "fix_pattern", False),
}


def row(issue, framework, stage, symptom, roots, fix, measures):
    labels = {"stage": (stage,), "symptom": (symptom,), "root_cause": tuple(roots), "fix_pattern": (fix,)}
    return FindingsRow(issue, framework, labels, measures)


@pytest.fixture
def rows():
    return [
        row(1, "DeepSpeed", 1, 10, [20], 30, Measures(4, 1, ("ZeRO-3",), 10.0, 20.0, 3)),
        row(2, "DeepSpeed", 1, 10, [20, 21], 30, Measures(12, 2, ("ZeRO-3", "comm"), 30.0, 40.0, 5)),
        row(3, "Megatron-LM", 2, 11, [21], 30, Measures(100, 5, (), 50.0, 60.0, 1)),
        row(4, "Megatron-LM", 2, 11, [21], 30, Measures(8, 1, ("pipeline",), 70.0, 80.0, 2)),
        row(5, "DeepSpeed", 1, 10, [20], 30, None),  # labelled, no fix data
        row(6, "DeepSpeed", 1, 11, [20], 30, Measures(None, has_fix=False)),
    ]


@pytest.fixture
def findings(rows):
    return findings_from_rows(rows, dimensions=DIMENSIONS, categories=CATEGORIES, seed=3)


def test_counts_issues_and_those_with_fix_data(findings):
    assert (findings.issues, findings.with_fix) == (6, 4)


def test_fix_size_by_root_cause_gives_n_median_iqr_and_the_share_of_small_fixes(findings):
    table = findings.table("findings-size-root_cause")
    assert table.header[:7] == ["Root cause", "Issues", "With fix data", "Median", "Q1", "Q3", "≤ 10 LOC (%)"]
    by_name = {r[0]: r for r in table.rows}
    # NCCL misuse: issues 1, 2, 5, 6 (two-valued issue 2 counts here too); sizes 4 and 12.
    assert by_name["NCCL misuse"][1:7] == [4, 2, 8.0, 6.0, 10.0, 50.0]
    # Configuration: issues 2, 3, 4 with sizes 12, 100, 8: median 12, type-7 quartiles 10 and 56.
    assert by_name["Configuration"][1:7] == [3, 3, 12.0, 10.0, 56.0, 33.3]
    assert "counts once for each" in table.note
    assert "Kruskal–Wallis" in table.note and "n = 5" in table.note


def test_time_to_fix_by_framework(findings):
    table = findings.table("findings-time-framework")
    by_name = {r[0]: r for r in table.rows}
    assert by_name["DeepSpeed"][1:6] == [4, 2, 20.0, 15.0, 25.0]
    assert by_name["Megatron-LM"][1:6] == [2, 2, 60.0, 55.0, 65.0]
    assert by_name["Megatron-LM"][6] == 70.0  # median hours to close


def test_components_by_root_cause_count_each_component_and_unmapped_fixes(findings):
    rows = findings.table("findings-components-root_cause").rows
    counts = {(component, cause): n for component, cause, n in rows}
    assert counts[("ZeRO-3", "NCCL misuse")] == 2
    assert counts[("comm", "Configuration")] == 1
    assert counts[(NO_COMPONENT, "Configuration")] == 1  # issue 3 touched no mapped path
    # Issue 2 has two root causes and two components: four pairs; issues 1, 3 and 4 one each; 5 and 6 no fix data.
    assert sum(counts.values()) == 7
    assert counts[("ZeRO-3", "Configuration")] == counts[("comm", "NCCL misuse")] == 1


def test_distributed_share_overall_and_per_stage(findings):
    table = findings.table("findings-distributed")
    rows = {(r[1], r[0], r[2]): r[3:] for r in table.rows}
    # Symptoms used: Hang (distributed-specific) and Crash (not): 50%.
    assert rows[("All stages", "Symptom", "categories used")] == [1, 1, 0, 50.0]
    # Issues: Hang on 1, 2, 5; Crash on 3, 4, 6.
    assert rows[("All stages", "Symptom", "issues")] == [3, 3, 0, 50.0]
    assert rows[("Training", "Symptom", "issues")] == [3, 1, 0, 75.0]
    assert rows[("Initialisation", "Symptom", "issues")] == [0, 2, 0, 0.0]
    # Root causes: NCCL misuse flagged, Configuration unknown; issue 2 has both: distributed-specific.
    assert rows[("All stages", "Root cause", "issues")] == [4, 0, 2, 100.0]
    assert "distributed_specific" in table.note


def test_flows_count_each_combination_and_chart_as_a_sankey(findings):
    table = findings.table("findings-flows")
    assert table.header == ["Symptom", "Root cause", "Fix pattern", "Issues"]
    assert ["Hang", "NCCL misuse", "Upgrade dependency", 3] in table.rows
    assert sum(r[-1] for r in table.rows) == 7  # six issues, issue 2 in two combinations
    root = ET.fromstring(table.svg())  # noqa: S314 - our own output
    assert list(root.iter(f"{SVG}path"))


def test_independence_says_which_test_ran_and_its_n(findings):
    table = findings.table("findings-independence")
    assert [r[1] for r in table.rows] == [
        "framework × stage",
        "framework × symptom",
        "framework × root cause",
        "framework × fix pattern",
    ]
    by_subject = {r[1]: r for r in table.rows}
    assert by_subject["framework × stage"][2] == "Fisher's exact test (two-sided)"  # 2x2 and sparse
    assert by_subject["framework × stage"][3] == 6
    assert by_subject["framework × root cause"][3] == 7
    assert by_subject["framework × fix pattern"][2] == "none"  # one fix pattern: nothing to test
    assert by_subject["framework × stage"][8].startswith("Benjamini–Hochberg over 3 tests")


def test_differences_test_each_grouping_and_say_the_test(findings):
    table = findings.table("findings-differences")
    kruskal = [r for r in table.rows if r[2].startswith("Kruskal")]
    assert len(kruskal) == 10  # five groupings x two measures
    assert all(r[3] >= 0 for r in table.rows)
    assert all(r[2] for r in table.rows)


def test_pairwise_tests_follow_a_significant_omnibus_test_only():
    fast = [row(i, "DeepSpeed", 1, 10, [20], 30, Measures(i, hours_to_fix=i)) for i in range(1, 21)]
    slow = [row(100 + i, "Megatron-LM", 2, 11, [21], 30, Measures(1000 + i, hours_to_fix=500 + i)) for i in range(20)]
    findings = findings_from_rows(fast + slow, dimensions=DIMENSIONS, categories=CATEGORIES, seed=3)
    rows = findings.table("findings-differences").rows
    pairwise = [r for r in rows if r[2].startswith("Mann–Whitney")]
    assert pairwise, "a clear difference must be followed by pairwise tests"
    assert all(r[9] == "Cliff's delta" and r[11] == "large" and abs(r[10]) == 1.0 for r in pairwise)
    assert {r[0] for r in pairwise} >= {"fix size by root cause: pairwise", "time to fix by framework: pairwise"}


@pytest.mark.parametrize("slug", ["findings-size-symptom", "findings-time-stage", "findings-flows"])
def test_charts_render_as_svg_and_png(findings, slug):
    table = findings.table(slug)
    assert table.has_chart
    assert ET.fromstring(table.svg()).tag == f"{SVG}svg"  # noqa: S314 - our own output
    assert table.png().startswith(b"\x89PNG")


def test_every_table_renders_as_csv_and_latex(findings):
    for table in findings.tables:
        lines = list(table.csv())
        assert len(lines) == len(table.rows) + 1
        latex = table.latex()
        assert latex.count("\\toprule") == 1 and latex.rstrip().endswith("\\end{table}")


def test_a_study_without_fix_data_still_has_every_table():
    rows = [row(1, "DeepSpeed", 1, 10, [20], 30, None)]
    findings = findings_from_rows(rows, dimensions=DIMENSIONS, categories=CATEGORIES, seed=3)
    assert findings.with_fix == 0
    assert findings.table("findings-size-symptom").rows == [["Hang", 1, 0, None, None, None, None, None]]
    assert findings.table("findings-components-root_cause").rows == []
    assert "no data" in findings.table("findings-size-symptom").svg()


def test_two_categories_of_one_name_stay_apart_in_the_tests():
    categories = {
        **CATEGORIES,
        22: CategoryInfo("a-config", "Configuration", "A > Configuration", "root_cause", None),
    }
    rows = [row(i, "DeepSpeed", 1, 10, [21 if i % 2 else 22], 30, Measures(i, hours_to_fix=i)) for i in range(1, 13)]
    findings = findings_from_rows(rows, dimensions=DIMENSIONS, categories=categories, seed=3)
    kruskal = next(t.result for t in findings.tests if t.result.subject == "fix size by root cause")
    assert kruskal.n == 12 and kruskal.note == "2 groups."


def test_a_study_without_final_labels_has_empty_tables_and_undefined_tests():
    findings = findings_from_rows([], dimensions=DIMENSIONS, categories=CATEGORIES, seed=3)
    assert (findings.issues, findings.with_fix) == (0, 0)
    assert findings.table("findings-size-root_cause").rows == []
    assert all(not t.result.defined for t in findings.tests)
    for table in findings.tables:
        if table.has_chart:
            assert table.svg().startswith("<?xml")
