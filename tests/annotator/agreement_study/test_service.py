"""The agreement report: known values from reference tables, levels, pairs, sets, exclusions, caching."""

import pytest
from django.core.cache import cache

from annotator.agreement import krippendorff_alpha_masi
from annotator.models import Study
from annotator.services.agreement import agreement_report, report_rows
from core.errors import DomainError
from tests.annotator.agreement_study.factories import (
    add_round,
    assignments_of,
    grant_study,
    study_with_issues,
    three_level_taxonomy,
    write_label,
    write_resolution,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def dimension(report: dict, key: str) -> dict:
    return next(d for d in report["dimensions"] if d["key"] == key)


def test_the_grant_table_gives_kappa_0_4_with_its_n_and_interval(users):
    report = agreement_report(study=grant_study(users))
    row = dimension(report, "symptom")["summary"]
    assert row["n"] == 50
    assert row["percent"] == pytest.approx(0.7)
    assert row["kappa"] == pytest.approx(0.4)
    # Fleiss-Cohen-Everitt SE of this table: 0.1270 (statsmodels / SAS PROC FREQ), so 0.4 -/+ 1.96 * 0.127.
    assert row["se"] == pytest.approx(0.12700, abs=1e-4)
    assert (row["low"], row["high"]) == (pytest.approx(0.1511, abs=1e-3), pytest.approx(0.6489, abs=1e-3))
    assert row["band"] == "fair"
    assert row["ac1"] is not None and row["alpha"] is not None


def test_the_confusion_matrix_holds_the_table_and_each_cell_its_issues(users):
    report = agreement_report(study=grant_study(users))
    confusion = dimension(report, "symptom")["confusion"]
    assert [[c["count"] for c in row["cells"]] for row in confusion["rows"]] == [[20, 5], [10, 15]]
    assert confusion["rows"][0]["cells"][0]["heat"] == 9  # the largest cell is the darkest
    assert all(0 <= c["heat"] <= 9 for row in confusion["rows"] for c in row["cells"])


def test_a_dimension_nobody_labelled_is_undefined_not_a_crash(users):
    report = agreement_report(study=grant_study(users))
    row = dimension(report, "root_cause")["summary"]
    assert row["kappa"] is None and row["n"] == 0
    assert "both raters" in row["undefined"]


def test_per_category_agreement_is_one_versus_rest(users):
    report = agreement_report(study=grant_study(users))
    per_category = dimension(report, "symptom")["per_category"]
    assert [c["n_both"] for c in per_category] == [20, 15]
    # With two categories, one-vs-rest is the whole table again.
    assert per_category[0]["kappa"] == pytest.approx(0.4)


def test_per_level_agreement_on_a_three_level_tree(users):
    taxonomy = three_level_taxonomy()
    study = study_with_issues(users, n_issues=4, taxonomy=taxonomy)
    leaves = taxonomy["cats"]["tree"]
    pairs = [("L1", "L2"), ("L1", "L3"), ("L4", "L4"), ("L3", "L4")]
    for a, b, (left, right) in zip(
        assignments_of(study, users["rater_a"]), assignments_of(study, users["rater_b"]), pairs, strict=True
    ):
        write_label(a, [leaves[left]])
        write_label(b, [leaves[right]])
    tree = dimension(agreement_report(study=study), "tree")
    assert [(row["level"], row["name"], row["percent"]) for row in tree["levels"]] == [
        (1, "stage", pytest.approx(0.75)),
        (2, "inner category", pytest.approx(0.5)),
        (3, "leaf", pytest.approx(0.25)),
    ]
    assert tree["summary"]["name"] == "leaf"
    at_stage = dimension(agreement_report(study=study, level=1), "tree")
    assert [row["level"] for row in at_stage["levels"]] == [1]
    assert at_stage["confusion"]["categories"] == ["S1", "S2"]


def test_per_pair_with_three_raters(users):
    users = {**users, "rater_c": UserFactory(username="rater_c")}
    study = study_with_issues(users, n_issues=30, raters=("rater_a", "rater_b", "rater_c"))
    yes, no = study.taxonomy_fixture["cats"]["symptom"][:2]
    for role in ("rater_a", "rater_b", "rater_c"):
        for assignment in assignments_of(study, users[role]):
            truth = assignment.study_issue.position % 2 == 0
            if role == "rater_c":
                truth = not truth  # C always disagrees with A and B
            write_label(assignment, [yes if truth else no])
    report = agreement_report(study=study)
    assert report["pooled"] is True
    rows = {tuple(row["names"]): row for row in dimension(report, "symptom")["per_pair"]}
    assert set(rows) == {("rater_a", "rater_b"), ("rater_a", "rater_c"), ("rater_b", "rater_c")}
    assert rows[("rater_a", "rater_b")]["kappa"] == pytest.approx(1.0)
    assert rows[("rater_a", "rater_c")]["percent"] == pytest.approx(0.0)
    assert sum(row["n"] for row in rows.values()) == 30
    a, c = users["rater_a"].pk, users["rater_c"].pk
    only = agreement_report(study=study, pair=(a, c))
    assert [r["id"] for r in only["raters"]] == sorted([a, c])
    assert dimension(only, "symptom")["summary"]["percent"] == pytest.approx(0.0)


def test_multi_valued_dimension_uses_alpha_with_masi_and_exact_sets(users):
    study = study_with_issues(users, n_issues=4)
    s0, s1, s2 = study.taxonomy_fixture["cats"]["stage"]
    sets = [({s0}, {s0}), ({s0, s1}, {s0}), ({s2}, {s2}), ({s1}, {s2})]
    for a, b, (left, right) in zip(
        assignments_of(study, users["rater_a"]), assignments_of(study, users["rater_b"]), sets, strict=True
    ):
        write_label(a, sorted(left, key=lambda c: c.pk))
        write_label(b, sorted(right, key=lambda c: c.pk))
    stage = dimension(agreement_report(study=study), "stage")
    assert stage["multi_valued"] and stage["summary"]["kappa"] is None
    assert stage["summary"]["exact_set"] == pytest.approx(0.5)
    expected = krippendorff_alpha_masi(
        [[frozenset(c.pk for c in left) for left, _ in sets], [frozenset(c.pk for c in right) for _, right in sets]]
    )
    assert stage["summary"]["alpha"] == pytest.approx(expected)
    assert stage["summary"]["gate_measure"] == "alpha_masi"


def test_an_excluded_issue_leaves_the_dimensions_and_counts_in_screening(users):
    study = grant_study(users)
    first_a = assignments_of(study, users["rater_a"])[0]
    write_label(first_a, [], excluded=True)  # a revision: after discussion only
    report = agreement_report(study=study)
    assert dimension(report, "symptom")["after"]["revised"]["n"] == 49
    assert dimension(report, "symptom")["after"]["revised"]["left_out"] == {"excluded": 1}
    assert dimension(report, "symptom")["summary"]["n"] == 50
    assert report["screening"]["n"] == 50 and report["screening"]["percent"] == pytest.approx(1.0)


def test_after_discussion_is_each_rater_against_the_final_label(users):
    study = grant_study(users)
    assert agreement_report(study=study)["after_available"] is False
    yes = study.taxonomy_fixture["cats"]["symptom"][0]
    for a in assignments_of(study, users["rater_a"])[:10]:
        write_resolution(a.study_issue, {"symptom": [yes.pk]})  # the first 10 are yes/yes
    after = dimension(agreement_report(study=study), "symptom")["after"]
    assert after["available"] and after["resolved"] == 10
    assert [(row["name"], row["percent"]) for row in after["rows"]] == [("rater_a", 1.0), ("rater_b", 1.0)]


def test_a_pending_dimension_of_a_resolution_does_not_count(users):
    study = grant_study(users)
    write_resolution(assignments_of(study, users["rater_a"])[0].study_issue, {})
    assert agreement_report(study=study)["after_available"] is False


def test_trend_has_a_value_per_round(users):
    study = grant_study(users, kind="pilot")
    add_round(study, users, n_issues=4)
    yes = study.taxonomy_fixture["cats"]["symptom"][0]
    no = study.taxonomy_fixture["cats"]["symptom"][1]
    second = [a for a in assignments_of(study, users["rater_a"]) if a.study_issue.round.number == 2]
    second_b = [a for a in assignments_of(study, users["rater_b"]) if a.study_issue.round.number == 2]
    for i, (a, b) in enumerate(zip(second, second_b, strict=True)):
        write_label(a, [yes if i % 2 else no])
        write_label(b, [yes if i % 2 else no])
    report = agreement_report(study=study)
    trend = dimension(report, "symptom")["trend"]
    assert [(p["round"], p["n"]) for p in trend] == [(1, 50), (2, 4)]
    assert trend[0]["value"] == pytest.approx(0.4) and trend[1]["value"] == pytest.approx(1.0)
    only_two = agreement_report(study=study, round_number=2)
    assert dimension(only_two, "symptom")["summary"]["kappa"] == pytest.approx(1.0)


def test_unknown_round_and_bad_pair_are_refused_with_a_message(users):
    study = grant_study(users)
    with pytest.raises(DomainError, match="no round 7"):
        agreement_report(study=study, round_number=7)
    with pytest.raises(DomainError, match="no submitted labels in common"):
        agreement_report(study=study, pair=(999998, 999999))


def test_the_report_is_cached_until_a_label_changes(users, django_assert_num_queries):
    from annotator.services.annotations import AnnotationInput, annotation_submit

    study = grant_study(users, only_symptom=True)
    assert dimension(agreement_report(study=study), "symptom")["summary"]["kappa"] == pytest.approx(0.4)
    again = Study.objects.get(pk=study.pk)
    with django_assert_num_queries(1):  # only the labels version: the figures come from the cache
        agreement_report(study=again)
    # Rater B changes one "no" (where A said "yes") to "yes": the table becomes 21/4/10/15.
    yes = study.taxonomy_fixture["cats"]["symptom"][0]
    annotation = assignments_of(study, users["rater_b"])[20].annotation
    annotation.refresh_from_db()
    annotation_submit(
        annotation=annotation,
        actor=users["rater_b"],
        data=AnnotationInput(values={"symptom": [yes.pk]}),
        expected_version=annotation.version,
    )
    fresh = agreement_report(study=Study.objects.get(pk=study.pk))
    # A revision is after discussion: the independent figures (first submissions) stay as they were.
    table = [[c["count"] for c in row["cells"]] for row in dimension(fresh, "symptom")["confusion"]["rows"]]
    assert table == [[20, 5], [10, 15]]
    assert dimension(fresh, "symptom")["summary"]["kappa"] == pytest.approx(0.4, abs=1e-9)
    assert dimension(fresh, "symptom")["after"]["revised"]["kappa"] == pytest.approx(0.44, abs=1e-9)


def test_a_new_resolution_changes_the_labels_version(users):
    from annotator.selectors.agreement import labels_version

    study = grant_study(users)
    before = labels_version(study=study)
    write_resolution(assignments_of(study, users["rater_a"])[0].study_issue, {})
    assert labels_version(study=study) != before
    cache.clear()


def test_flat_rows_have_one_overall_row_per_dimension(users):
    report = agreement_report(study=grant_study(users))
    rows = list(report_rows(report, by_level=False, by_pair=False))
    assert [r[:2] for r in rows] == [["independent (first submissions)", "overall"]] * 3 + [
        ["independent (first submissions)", "screening"],
        *[["after discussion", "rater against rater"]] * 3,
    ]
