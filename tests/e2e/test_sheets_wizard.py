"""The spreadsheet import wizard in a real browser: a study owner uploads two raters' workbooks, maps the
columns, accepts the merge of a misspelt label, imports, and reads the agreement of the new study.

Screenshots land in tests/e2e/screenshots/ (sheets-1-upload.png … sheets-6-agreement.png).
"""

from pathlib import Path

import pytest
from django.urls import reverse
from openpyxl import Workbook
from playwright.sync_api import expect

from annotator.models import Annotation, Study, StudyIssue
from tests.annotator.studies.factories import make_owner
from tests.factories import make_bugs_taxonomy

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STUDY = "Bugs pilot from spreadsheets"
HEADER = ["Link", "Cause", "Fix"]
ISSUE = "https://github.com/org/repo/issues/{}"
# Rater B typed "wrong reslut" once: the review step suggests merging it into "wrong result" (used three times).
# Case and spacing ("CRASH", "hang ") are folded without asking; "PENDING" means not labelled.
ALICE = [
    ("crash", "fix code"),
    ("hang", "fix config"),
    ("Wrong result", "fix code"),
    ("crash", "fix code & fix config"),
    ("wrong result", "fix code"),
    ("Hang", "fix config"),
]
BOB = [
    ("CRASH", "fix code"),
    ("hang ", "fix config"),
    ("wrong reslut", "fix code"),
    ("hang", "fix code"),
    ("Wrong Result", "PENDING"),
    ("hang", "fix config"),
]
# Cause after cleaning: the raters agree on 5 of 6 issues; chance agreement is 12/36, so kappa = 0.75.
EXPECTED_CAUSES = {
    "alice": ["crash", "hang", "wrong-result", "crash", "wrong-result", "hang"],
    "bob": ["crash", "hang", "wrong-result", "hang", "wrong-result", "hang"],
}


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    """Uploaded spreadsheets are kept under MEDIA_ROOT: a folder of the test's own."""
    settings.MEDIA_ROOT = tmp_path / "media"


def _rater_workbook(path: Path, sheet: str, labels: list[tuple[str, str]]) -> Path:
    """One rater's .xlsx: a sheet named after the rater, a header row, one row per issue."""
    workbook = Workbook()
    worksheet = workbook.active
    worksheet.title = sheet
    worksheet.append(HEADER)
    for number, (cause, fix) in enumerate(labels, start=1):
        worksheet.append([ISSUE.format(number), cause, fix])
    workbook.save(path)
    return path


def _url(live_server, name: str, *args) -> str:
    return f"{live_server.url}{reverse(name, args=args)}"


def _causes(study: Study, rater: str) -> list[str]:
    """The cause codes of one rater's annotations in the study, by issue number."""
    annotations = Annotation.objects.filter(
        assignment__study_issue__study=study, assignment__rater__username=f"{study.slug}-{rater}"
    ).order_by("assignment__study_issue__issue__number")
    return [
        annotation.values.get(category__dimension__key="cause").category.code
        for annotation in annotations.prefetch_related("values__category")
    ]


def test_an_owner_imports_two_rater_workbooks_through_the_wizard(live_server, new_context, login, screenshot, tmp_path):
    owner = make_owner("owner")
    make_bugs_taxonomy()
    files = [
        _rater_workbook(tmp_path / "alice.xlsx", "alice", ALICE),
        _rater_workbook(tmp_path / "bob.xlsx", "bob", BOB),
    ]
    page = login(new_context(), owner.username)

    # Step 1: upload both workbooks, name the new study, choose the taxonomy.
    page.goto(_url(live_server, "annotator:sheets_upload"))
    expect(page.locator(".sheets-steps [aria-current=step]")).to_have_text("1. Upload")
    page.set_input_files("#id_files", [str(path) for path in files])
    page.fill("#id_study", STUDY)
    page.select_option("#id_taxonomy", value="bugs")
    screenshot(page, "sheets-1-upload")
    page.get_by_role("button", name="Next: map columns").click()
    page.wait_for_url("**/import-sheets/columns/")

    # Step 2: both sheets are found; tick them as raters, choose the link column and map the dimensions.
    expect(page.locator(".sheets-steps [aria-current=step]")).to_have_text("2. Map columns")
    sheets = page.get_by_test_id("sheets-table").locator("tbody tr")
    expect(sheets).to_have_count(2)
    expect(sheets.filter(has_text="alice.xlsx").locator("td").nth(2)).to_have_text("6")
    expect(sheets.filter(has_text="bob.xlsx").locator("td").nth(2)).to_have_text("6")
    page.get_by_label("alice", exact=True).check()
    page.get_by_label("bob", exact=True).check()
    page.select_option("#id_final", value="")
    page.select_option("#id_key", value="Link")
    expect(page.locator("#id_missing")).to_have_value("PENDING")
    page.fill("#id_map_cause", "Cause")
    page.fill("#id_map_fix", "Fix")
    screenshot(page, "sheets-2-columns")
    page.get_by_role("button", name="Next: review labels").click()
    page.wait_for_url("**/import-sheets/labels/")

    # Step 3: the misspelling is offered as a ticked merge into the common spelling; nothing fits no category.
    expect(page.locator(".sheets-steps [aria-current=step]")).to_have_text("3. Review labels")
    expect(page.get_by_test_id("sheets-errors")).to_have_count(0)
    suggestions = page.get_by_test_id("suggestions").locator("li")
    expect(suggestions).to_have_count(1)
    expect(suggestions.first).to_contain_text("'wrong reslut' (1) -> 'wrong result' (3)")
    merge = suggestions.first.get_by_role("checkbox")
    expect(merge).to_be_checked()
    page.get_by_role("button", name="Untick all", exact=True).click()
    expect(merge).not_to_be_checked()
    page.get_by_role("button", name="Tick all", exact=True).click()
    expect(merge).to_be_checked()
    expect(page.get_by_test_id("unknown-labels")).to_have_count(0)
    expect(page.get_by_text("Every label fits a category.")).to_be_visible()
    # The labels used, cleaned: one "wrong result" (the merged spelling, used four times), no "wrong reslut".
    page.get_by_text("cause (3 labels)").click()
    cause_counts = page.locator("details[open] .sheets-counts li")
    expect(cause_counts).to_have_count(3)
    expect(cause_counts.filter(has_text="wrong result").locator(".count")).to_have_text("4")
    expect(cause_counts.filter(has_text="hang").locator(".count")).to_have_text("5")
    expect(cause_counts.filter(has_text="crash").locator(".count")).to_have_text("3")
    expect(page.locator("details[open]")).not_to_contain_text("reslut")
    screenshot(page, "sheets-3-labels")
    page.get_by_role("button", name="Next: confirm").click()
    page.wait_for_url("**/import-sheets/confirm/")

    # Step 4: the summary of what will be written; nothing is written before Import.
    expect(page.locator(".sheets-steps [aria-current=step]")).to_have_text("4. Confirm")
    expect(page.get_by_test_id("sheets-errors")).to_have_count(0)
    summary = page.get_by_test_id("sheets-summary")
    expect(summary).to_contain_text(f"{STUDY} (new)")
    expect(summary).to_contain_text("bugs v1")
    expect(summary.locator("dt:has-text('Issues') + dd")).to_have_text("6")
    expect(summary.locator("dt:has-text('Raters') + dd")).to_have_text("alice, bob")
    expect(summary.locator("dt:has-text('Label merges') + dd")).to_have_text("1")
    assert not Study.objects.filter(name=STUDY).exists()
    screenshot(page, "sheets-4-confirm")
    page.get_by_role("button", name="Import", exact=True).click()

    # The new study's page, then its agreement: kappa on the cleaned cause labels.
    page.wait_for_url(lambda url: "/import-sheets/" not in url)
    study = Study.objects.get(name=STUDY)
    assert page.url == _url(live_server, "annotator:study_detail", study.pk)
    expect(page.locator("ul.messages")).to_contain_text("6 issues (6 new), 12 annotations")
    expect(page.locator("h1")).to_have_text(STUDY)
    screenshot(page, "sheets-5-study")
    page.get_by_test_id("agreement-link").click()
    page.wait_for_url(f"**{reverse('annotator:study_agreement', args=[study.pk])}")
    expect(page.get_by_test_id("kappa-cause")).to_have_text("0.75")
    expect(page.get_by_test_id("summary-cause").locator("td").nth(2)).to_have_text("6")
    screenshot(page, "sheets-6-agreement")

    # In the database: six issues, both raters' labels as cleaned, the owner owns the study.
    assert StudyIssue.objects.filter(study=study).count() == 6
    assert study.members.filter(user=owner, role="owner").exists()
    assert Annotation.objects.filter(assignment__study_issue__study=study).count() == 12
    for rater, causes in EXPECTED_CAUSES.items():
        assert _causes(study, rater) == causes, f"{rater}'s cause labels"
    both_fixes = Annotation.objects.get(
        assignment__study_issue__study=study,
        assignment__rater__username=f"{study.slug}-alice",
        assignment__study_issue__issue__number=4,
    )
    assert sorted(both_fixes.values.values_list("category__code", flat=True)) == ["crash", "fix-code", "fix-config"]
    pending = Annotation.objects.get(
        assignment__study_issue__study=study,
        assignment__rater__username=f"{study.slug}-bob",
        assignment__study_issue__issue__number=5,
    )
    assert list(pending.values.values_list("category__code", flat=True)) == ["wrong-result"]
    assert study.rounds.get().filters["sheets"]["files"] == ["alice.xlsx", "bob.xlsx"]
