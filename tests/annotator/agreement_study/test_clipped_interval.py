"""Kappa's 95% interval in the report, the page, the API and the CSV is clipped to [-1, 1] and says so."""

import csv
import io

import pytest
from rest_framework.test import APIClient

from annotator.agreement import cohen_kappa_ci
from annotator.services.agreement import TABLE_COLUMNS, agreement_report, report_rows
from tests.annotator.agreement_study.factories import assignments_of, grant_study, study_with_issues, write_label

pytestmark = pytest.mark.django_db

# Six issues, one disagreement: kappa 0.75 and a Wald interval of 0.32 .. 1.18 (the browser test's case).
FIRST = [0, 0, 1, 1, 2, 2]
SECOND = [0, 0, 1, 1, 1, 2]


def six_issue_study(users):
    study = study_with_issues(users, n_issues=6)
    leaves = study.taxonomy_fixture["cats"]["symptom"]
    pairs = zip(assignments_of(study, users["rater_a"]), assignments_of(study, users["rater_b"]), strict=True)
    for (a, b), first, second in zip(pairs, FIRST, SECOND, strict=True):
        write_label(a, [leaves[first]])
        write_label(b, [leaves[second]])
    return study


def symptom(report: dict) -> dict:
    return next(d for d in report["dimensions"] if d["key"] == "symptom")


def test_the_report_clips_the_upper_end_at_one_and_flags_it(users):
    report = agreement_report(study=six_issue_study(users))
    row = symptom(report)["summary"]
    wald = cohen_kappa_ci([FIRST, SECOND])
    assert row["n"] == 6 and row["kappa"] == pytest.approx(0.75)
    assert wald.high_unclipped == pytest.approx(1.1763, abs=1e-4)  # what an unclipped Wald interval would say
    assert row["low"] == pytest.approx(0.3237, abs=1e-4) and row["high"] == 1.0
    assert row["ci_clipped"] is True
    assert report["ci_clipped"] is True
    # Level 1 is the one group above the leaves: one category, no kappa, so no interval to clip.
    assert [r["ci_clipped"] for r in symptom(report)["levels"]] == [None, True]


def test_an_interval_inside_the_range_is_not_flagged(users):
    report = agreement_report(study=grant_study(users))
    row = symptom(report)["summary"]
    assert row["ci_clipped"] is False and report["ci_clipped"] is False
    assert (row["low"], row["high"]) == (pytest.approx(0.1511, abs=1e-3), pytest.approx(0.6489, abs=1e-3))


def test_rows_without_an_interval_have_no_flag(users):
    report = agreement_report(study=six_issue_study(users))
    stage = next(d for d in report["dimensions"] if d["key"] == "stage")  # multi-valued: no kappa, no interval
    root_cause = next(d for d in report["dimensions"] if d["key"] == "root_cause")  # nobody labelled it
    assert stage["summary"]["ci_clipped"] is None
    assert root_cause["summary"]["ci_clipped"] is None


def test_the_csv_has_a_clipped_column(users):
    rows = list(report_rows(agreement_report(study=six_issue_study(users)), by_level=False, by_pair=False))
    i, high = TABLE_COLUMNS.index("kappa_ci_clipped"), TABLE_COLUMNS.index("kappa_high")
    view, dimension = TABLE_COLUMNS.index("view"), TABLE_COLUMNS.index("dimension")
    overall = next(r for r in rows if r[view] == "overall" and r[dimension] == "Symptom")
    assert overall[high] == 1.0 and overall[i] is True


def test_the_api_json_and_csv_say_the_interval_is_clipped(users):
    study = six_issue_study(users)
    client = APIClient()
    client.force_authenticate(users["owner"])
    body = client.get(f"/api/v1/studies/{study.pk}/agreement/").json()
    row = symptom(body)["summary"]
    assert row["high"] == 1.0 and row["ci_clipped"] is True
    response = client.get(f"/api/v1/studies/{study.pk}/agreement/", {"format": "csv"})
    table = list(csv.DictReader(io.StringIO(response.content.decode())))
    overall = next(r for r in table if r["view"] == "overall" and r["dimension"] == "Symptom")
    assert (overall["kappa_high"], overall["kappa_ci_clipped"]) == ("1.0", "true")


def test_the_page_marks_a_clipped_interval_and_explains_it(users, client_as):
    study = six_issue_study(users)
    html = client_as("owner").get(f"/studies/{study.pk}/agreement/").content.decode()
    assert "0.32 – 1.00" in html and "1.18" not in html
    assert 'class="hint ci-clipped"' in html
    assert 'data-testid="ci-clipped-note"' in html
    assert "clipped to kappa's range" in html  # the method notes say it for every study


def test_the_page_has_no_clipped_mark_when_nothing_was_clipped(users, client_as):
    study = grant_study(users)
    html = client_as("owner").get(f"/studies/{study.pk}/agreement/").content.decode()
    assert 'class="hint ci-clipped"' not in html
    assert 'data-testid="ci-clipped-note"' not in html
