"""A rater who gave no category for a dimension gave no answer: the issue leaves that dimension's agreement and
its n, in multi-valued dimensions (MASI, exact set) just as in single-valued ones; excluded issues keep their own
handling."""

import numpy as np
import pytest

from annotator.agreement import krippendorff_alpha_masi, percent_agreement
from annotator.selectors.agreement import CategoryInfo, DimensionInfo, LabelLayer, StudyLabels
from annotator.services.agreement import agreement_report
from annotator.services.agreement.arrays import EXCLUDED_CODE, MISSING, Entries
from annotator.services.agreement.compute import _Dimension, _Tree
from annotator.services.annotations import AnnotationInput, annotation_submit
from tests.annotator.agreement_study.factories import (
    assignments_of,
    grant_study,
    study_with_issues,
    write_label,
    write_resolution,
)

pytestmark = pytest.mark.django_db

BLANK = 3  # the issue rater B left unlabelled in the tests below


def dimension(report: dict, key: str) -> dict:
    return next(d for d in report["dimensions"] if d["key"] == key)


def six_issues(users, *, blank_key: str):
    """Six issues labelled on every dimension by both raters, except that rater B gives nothing for ``blank_key``
    on issue BLANK (a "PENDING" cell, an optional dimension left empty). Returns the study and the stage sets."""
    study = study_with_issues(users, n_issues=6)
    cats = study.taxonomy_fixture["cats"]
    s0, s1, s2 = cats["stage"]
    stage_sets = [({s0}, {s0}), ({s0, s1}, {s0}), ({s2}, {s2}), ({s1}, {s1}), ({s1}, {s2}), ({s0, s2}, {s0, s2})]
    symptoms = [(0, 0), (1, 1), (2, 1), (0, 0), (1, 1), (2, 2)]
    pairs = zip(assignments_of(study, users["rater_a"]), assignments_of(study, users["rater_b"]), strict=True)
    for i, ((a, b), (left, right), (sa, sb)) in enumerate(zip(pairs, stage_sets, symptoms, strict=True)):
        write_label(a, [cats["symptom"][sa], *sorted(left, key=lambda c: c.pk)])
        b_labels = {"symptom": [cats["symptom"][sb]], "stage": sorted(right, key=lambda c: c.pk)}
        if i == BLANK:
            b_labels[blank_key] = []
        write_label(b, [c for labels in b_labels.values() for c in labels])
    return study, stage_sets


def pk_sets(sets, blank_side: int | None = None) -> list[list]:
    """The stage sets as the pure measures take them (rater rows), None where a rater gave nothing."""
    rows = [[frozenset(c.pk for c in pair[side]) for pair in sets] for side in (0, 1)]
    if blank_side is not None:
        rows[blank_side][BLANK] = None
    return rows


def test_a_multi_valued_dimension_left_blank_by_one_rater_leaves_the_issue_out(users):
    study, stage_sets = six_issues(users, blank_key="stage")
    stage = dimension(agreement_report(study=study), "stage")
    row = stage["summary"]
    assert row["n"] == 5, "the issue rater B left without a stage must not count as an empty set"
    expected = pk_sets(stage_sets, blank_side=1)
    assert row["exact_set"] == pytest.approx(percent_agreement(expected))  # 3 of the 5 shared issues
    assert row["exact_set"] == pytest.approx(3 / 5)
    assert row["alpha"] == pytest.approx(krippendorff_alpha_masi(expected))
    assert [point["n"] for point in stage["trend"]] == [5]
    assert sum(row["cells"][j]["count"] for row in stage["confusion"]["rows"] for j in range(len(row["cells"]))) == 5
    assert "(none)" not in stage["confusion"]["categories"]


def test_a_single_valued_dimension_left_blank_leaves_the_issue_out_the_same_way(users):
    study, _ = six_issues(users, blank_key="symptom")
    row = dimension(agreement_report(study=study), "symptom")["summary"]
    assert row["n"] == 5
    assert row["percent"] == pytest.approx(4 / 5)  # issue 2 is the one disagreement left


def test_a_multi_valued_dimension_nobody_labelled_is_undefined_with_n_0(users):
    row = dimension(agreement_report(study=grant_study(users)), "stage")["summary"]  # only symptom was labelled
    assert row["n"] == 0
    assert row["exact_set"] is None and row["alpha"] is None
    assert "labelled by two" in row["undefined"]


def test_an_optional_dimension_skipped_through_the_labelling_service_does_not_count(users):
    study = study_with_issues(users, n_issues=2)
    cats = study.taxonomy_fixture["cats"]
    s0 = cats["stage"][0]
    required = {"symptom": [cats["symptom"][0].pk], "root_cause": [cats["root_cause"][0].pk]}
    choices = {
        "rater_a": [{**required, "stage": [s0.pk]}, {**required, "stage": [s0.pk]}],
        "rater_b": [{**required, "stage": [s0.pk]}, required],  # B chose no stage on the second issue
    }
    for role, values in choices.items():
        for assignment, chosen in zip(assignments_of(study, users[role]), values, strict=True):
            annotation = assignment.annotation
            annotation.refresh_from_db()
            annotation_submit(
                annotation=annotation,
                actor=users[role],
                data=AnnotationInput(values=chosen),
                expected_version=annotation.version,
            )
    stage = dimension(agreement_report(study=study), "stage")["summary"]
    assert stage["n"] == 1 and stage["exact_set"] == pytest.approx(1.0)


def test_an_issue_excluded_by_a_rater_keeps_its_own_handling(users):
    study, _ = six_issues(users, blank_key="stage")
    write_label(assignments_of(study, users["rater_a"])[0], [], excluded=True)  # a revision, after discussion
    report = agreement_report(study=study)
    revised = dimension(report, "stage")["after"]["revised"]
    assert revised["n"] == 4  # the excluded issue and the blank one are out, and say why
    assert revised["left_out"] == {"excluded": 1, "missing_label": 1}
    independent = dimension(report, "stage")["summary"]
    assert (independent["n"], independent["left_out"]) == (5, {"missing_label": 1})
    assert report["screening"]["n"] == 6  # the exclusion itself is compared on every issue


def test_a_final_label_with_no_category_is_left_out_after_discussion(users):
    study, _ = six_issues(users, blank_key="symptom")
    issues = [a.study_issue for a in assignments_of(study, users["rater_a"])]
    s0 = study.taxonomy_fixture["cats"]["stage"][0]
    write_resolution(issues[0], {"stage": [s0.pk]})
    write_resolution(issues[1], {"stage": []})  # decided, but with no category: nothing to compare with
    after = dimension(agreement_report(study=study), "stage")["after"]
    assert after["available"] and after["resolved"] == 2
    assert [row["n"] for row in after["rows"]] == [1, 1]
    # Issue 1's final label has no stage; the four issues without a final label are not compared either.
    assert [row["left_out"] for row in after["rows"]] == [{"no_final_label": 4, "missing_label": 1}] * 2


# The same rule on the encoded arrays (no database): an annotation with no category of the dimension is missing.
CATEGORIES = {10: CategoryInfo(10, 1, None, "A", 1), 20: CategoryInfo(20, 1, None, "B", 2)}


def _labels(multi: bool) -> StudyLabels:
    """Annotations: {10}, nothing, excluded, {10, 20}; resolutions: decided {} and decided {20}."""
    return StudyLabels(
        [DimensionInfo(1, "kind", "Kind", multi, [], {}, 1)],
        CATEGORIES,
        [(1, "main")],
        {},
        first=LabelLayer(
            si=np.array([1, 1, 2, 2]),
            rater=np.array([7, 8, 7, 8]),
            round=np.array([1, 1, 1, 1]),
            excluded=np.array([False, False, True, False]),
            val_row=np.array([0, 3, 3]),
            val_dim=np.array([1, 1, 1]),
            val_cat=np.array([10, 10, 20]),
        ),
        res_si=np.array([1, 2]),
        res_excluded=np.array([False, False]),
        res_values=[{"kind": []}, {"kind": [20]}],
    )


@pytest.mark.parametrize("issue_type", [False, True])
def test_no_category_is_missing_in_both_kinds_of_dimension(issue_type):
    decoded = {}
    for multi in (False, True):
        data = _labels(multi)
        dim = _Dimension(data.dimensions[0], _Tree(CATEGORIES, 1), issue_type=issue_type)
        codes, sets = Entries(data, {"kind": 1}).codes(dim, 1)
        decoded[multi] = [None if c == MISSING else (sets[c] if sets is not None else c) for c in codes.tolist()]
    excluded = EXCLUDED_CODE if issue_type else None
    assert decoded[False] == [10, None, excluded, 10, None, 20]
    excluded_set = frozenset({EXCLUDED_CODE}) if issue_type else None
    assert decoded[True] == [frozenset({10}), None, excluded_set, frozenset({10, 20}), None, frozenset({20})]
