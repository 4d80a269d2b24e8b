"""A final sheet's labels are recorded as the outcome of the raters' discussion: what the raters disagreed on is
kept (so the progress panel, the adjudication queue and the history can tell the discussed issues apart), the
disputed dimensions count as negotiated and the agreed ones as unanimous, as resolution_record would record them."""

import pytest
from django.urls import reverse

from annotator.models import Resolution, ResolutionHistory, Study, StudyIssue
from annotator.selectors.resolutions import QueueFilters, adjudication_progress, adjudication_queue, next_pending
from annotator.services.agreement.report import agreement_report
from annotator.services.resolutions import resolution_auto, resolution_record
from taxonomy.models import Category
from tests.annotator.final_labels import values_of
from tests.annotator.sheets_import.csv_files import HEADER, LINK, write_csv
from tests.annotator.sheets_import.test_adjudication_after_import import fields, import_pair, resolution_of

# The raters label as in conftest.LABELS: 1-3 agree, 4 differs in cause, 5 in fix, 6 in both.
# The final sheet keeps 1, changes the agreed cause of 2, settles 4-6 and lacks 3.
FINAL = {
    1: ("crash", "fix code"),
    2: ("crash", "fix config"),  # the raters both said hang
    4: ("hang", "fix code"),
    5: ("wrong result", "fix config & fix code"),
    6: ("crash", "fix code"),
}
# issue: (disagreements, methods, overall method)
EXPECTED = {
    1: ([], {"cause": "unanimous", "fix": "unanimous"}, "unanimous"),
    2: ([], {"cause": "negotiated", "fix": "unanimous"}, "negotiated"),
    3: ([], {"cause": "unanimous", "fix": "unanimous"}, "unanimous"),  # not in the final sheet: compared
    4: (["cause"], {"cause": "negotiated", "fix": "unanimous"}, "negotiated"),
    5: (["fix"], {"cause": "unanimous", "fix": "negotiated"}, "negotiated"),
    6: (["cause", "fix"], {"cause": "negotiated", "fix": "negotiated"}, "negotiated"),
}


@pytest.fixture
def final_sheet(tmp_path):
    return write_csv(tmp_path / "agreed.csv", [HEADER, *[[LINK.format(n), *labels] for n, labels in FINAL.items()]])


@pytest.fixture
def imported(bugs_taxonomy, pair, final_sheet) -> Study:
    import_pair(*pair, "--final", str(final_sheet))
    return Study.objects.get()


def category(code: str) -> int:
    return Category.objects.get(code=code).pk


def test_each_resolution_keeps_the_disagreements_and_says_how_each_dimension_was_decided(imported):
    found = {}
    for number in EXPECTED:
        resolution = resolution_of(number)
        assert resolution.status == Resolution.Status.RESOLVED, number
        found[number] = (resolution.disagreements, resolution.methods, resolution.method)
    assert found == EXPECTED
    assert resolution_of(5).disagreement_count == 1 and resolution_of(6).disagreement_count == 2
    assert values_of(resolution_of(5)) == {
        "cause": [category("wrong-result")],
        "fix": sorted([category("fix-code"), category("fix-config")]),
    }


def _fields(resolution: Resolution, names) -> dict:
    return {f: values_of(resolution) if f == "values" else getattr(resolution, f) for f in names}


def test_the_import_records_the_final_sheet_as_resolution_record_does(imported, pair, final_sheet, users):
    """The import writes in bulk; comparing in the service and then recording each final row with
    resolution_record (negotiated) must give the same resolutions."""
    compared = ("values", "methods", "method", "excluded", "disagreement_keys", "disagreement_count", "status")
    imported_fields = {r.study_issue_id: _fields(r, compared) for r in Resolution.objects.all()}
    ResolutionHistory.objects.all().delete()
    Resolution.objects.all().delete()
    for study_issue in StudyIssue.objects.select_related("issue").order_by("position"):
        resolution = resolution_auto(study_issue=study_issue)
        if study_issue.issue.number not in FINAL:
            continue
        cause, fix = FINAL[study_issue.issue.number]
        fixes = [category(code.strip().replace(" ", "-")) for code in fix.split("&")]
        resolution_record(
            study_issue=study_issue,
            actor=users["staff"],
            values={"cause": [category(cause.replace(" ", "-"))], "fix": fixes},
            method=Resolution.Method.NEGOTIATED,
            reason=Resolution.Reason.OTHER if resolution.disagreements else "",
            expected_version=resolution.version,
        )
    recorded = {r.study_issue_id: _fields(r, compared) for r in Resolution.objects.all()}
    assert recorded == imported_fields


def test_each_final_row_has_one_record_entry_with_its_disagreements(imported, final_sheet):
    for number in FINAL:
        resolution = resolution_of(number)
        entries = list(ResolutionHistory.objects.filter(resolution=resolution))
        assert [(e.action, e.version, e.before) for e in entries] == [("record", 1, {})], number
        after = entries[0].after
        assert (after["disagreements"], after["methods"], after["method"]) == EXPECTED[number], number
        assert final_sheet.name in resolution.note
    assert ResolutionHistory.objects.get(resolution=resolution_of(3)).action == "auto"


def test_the_progress_panel_counts_only_issues_without_disagreement_as_unanimous(imported, client_as):
    progress = adjudication_progress(study=imported)
    assert {k: progress[k] for k in ("total", "resolved", "unanimous", "pending", "with_raters")} == {
        "total": 6,
        "resolved": 6,
        "unanimous": 3,  # 1, 2 and 3: the raters agreed (2's final differs, but nothing was disputed)
        "pending": 0,
        "with_raters": 0,
    }
    page = client_as("staff").get(reverse("annotator:study_detail", args=[imported.pk])).content.decode()
    assert 'data-testid="progress-resolved">6<' in page
    assert "resolved (3 unanimous)" in page


def test_the_queue_lists_the_settled_disagreements_among_the_resolved(imported, client_as):
    def numbers(**filters) -> list[int]:
        return [si.issue.number for si in adjudication_queue(study=imported, filters=QueueFilters(**filters))]

    assert numbers(status="resolved") == [6, 4, 5]  # most disputed first
    assert numbers(status="resolved", dimension="cause") == [6, 4]
    assert numbers(status="resolved", dimension="fix") == [6, 5]
    assert numbers(status="pending") == []
    assert next_pending(study=imported) is None
    url = reverse("annotator:adjudication_queue", args=[imported.pk])
    page = client_as("staff").get(url, {"status": "resolved"}).content.decode()
    assert page.count("Negotiated") >= 3


def test_the_agreement_report_compares_the_raters_before_and_each_rater_with_the_final_labels_after(imported):
    report = agreement_report(study=imported)
    assert (report["issues"], report["resolutions"]) == (6, 6)
    cause = next(d for d in report["dimensions"] if d["key"] == "cause")
    assert cause["summary"]["n"] == 6
    assert cause["summary"]["percent"] == pytest.approx(4 / 6)  # before: the raters differ on 4 and 6
    after = cause["after"]
    assert after["available"] and after["resolved"] == 6
    # after: rater A differs from the final cause on 2 and 4, rater B on 2 and 6
    assert [row["percent"] for row in after["rows"]] == [pytest.approx(4 / 6), pytest.approx(4 / 6)]


def test_running_the_import_with_the_final_sheet_again_changes_nothing(imported, pair, final_sheet):
    before = {r.pk: fields(r) for r in Resolution.objects.all()}
    history = ResolutionHistory.objects.count()
    out, _ = import_pair(*pair, "--final", str(final_sheet))
    assert "nothing changed" in out
    assert {r.pk: fields(r) for r in Resolution.objects.all()} == before
    assert ResolutionHistory.objects.count() == history


def test_a_final_row_only_one_rater_labelled_is_negotiated_without_disagreement(bugs_taxonomy, pair, tmp_path):
    a, b = pair
    write_csv(b, [HEADER, *[[LINK.format(n), "crash", "fix code"] for n in (1, 2, 3, 4, 5)]])  # no row for 6
    final = write_csv(tmp_path / "agreed.csv", [HEADER, [LINK.format(6), "crash", "fix code"]])
    import_pair(a, b, "--final", str(final))
    resolution = resolution_of(6)
    assert (resolution.status, resolution.disagreements) == ("resolved", [])
    assert (resolution.methods, resolution.method) == ({"cause": "negotiated", "fix": "negotiated"}, "negotiated")


def test_the_raters_sheets_become_their_first_submissions_and_the_final_sheet_the_resolutions(imported):
    """Both layers: what each rater's sheet says is their independent submission (source "spreadsheet"); the
    final sheet's labels are the outcome of their discussion and never overwrite it."""
    from annotator.models import FirstSubmission

    firsts = FirstSubmission.objects.filter(study_issue__study=imported)
    assert firsts.count() == 12  # six issues, two raters
    assert set(firsts.values_list("source", flat=True)) == {FirstSubmission.Source.SPREADSHEET}
    sixth = {
        first.rater.username: sorted(value.category.code for value in first.values.filter(dimension__key="cause"))
        for first in firsts.filter(study_issue__issue__number=6).select_related("rater")
    }
    assert sorted(sixth.values()) == [["crash"], ["hang"]]  # the raters differed; the final sheet says crash
    assert values_of(resolution_of(6))["cause"] == [category("crash")]
