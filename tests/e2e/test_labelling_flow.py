"""The labelling flow in a real browser: an owner sets up a study, two raters label it blind with the keyboard.

Screenshots land in tests/e2e/screenshots/; the ones the README shows are copied to docs/screenshots/.
"""

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from annotator.models import Annotation, Assignment, Repository, Study
from annotator.services.annotations import CONFLICT_MESSAGE
from taxonomy.models import Category, TaxonomyVersion
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_owner, make_study, make_taxonomy
from tests.e2e.helpers import (
    KeyboardLabels,
    checked_names,
    expect_saved_draft,
    focus_by_tab,
    label_with_keyboard,
    wait_for_labelling_script,
)
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEMO_ISSUES = Path(settings.BASE_DIR) / "annotator" / "demo" / "demo_issues.json"
DOCS_SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"
DDL_KEYS = ["stage", "symptom", "root_cause", "fix_pattern"]
DDL_MULTI = ("fix_pattern",)
B_NOTE = "B-ONLY-NOTE zebra-quartz"

# Rater B labels first, so there is something of B's for rater A's pages to (not) show.
B_LABELS = [
    KeyboardLabels("4", ("memory", "misused", "version"), f"{B_NOTE} 1", tab_after_first=True),
    KeyboardLabels("4", ("setup", "dependency", "version"), f"{B_NOTE} 2"),
    KeyboardLabels("2", ("performance", "misconfigured", "tuning"), f"{B_NOTE} 3", tab_after_first=True),
    KeyboardLabels("1", ("setup", "dependency", "version"), f"{B_NOTE} 4"),
]
A_LABELS = [
    KeyboardLabels("2", ("memory", "misused", "version"), "A: hang during communicator setup"),
    KeyboardLabels("4", ("setup", "dependency", "version"), "A: wrong CUDA build"),
    KeyboardLabels("3", ("performance", "misaligned", "tuning"), "A: slow all-reduce", tab_after_first=True),
    KeyboardLabels("1", ("setup", "dependency", "version"), "A: import fails"),
]
STAGE_NAMES = {
    "1": "package build and import (environment setup)",
    "2": "communication setup",
    "3": "data and model preparation",
    "4": "training and evaluation",
}


def _url(live_server, name: str, *args) -> str:
    return f"{live_server.url}{reverse(name, args=args)}"


def _create_study_in_the_browser(page, live_server, *, version, raters, deepspeed) -> Study:
    page.goto(_url(live_server, "annotator:study_create"))
    page.fill("#id_name", "DDL bugs, browser flow")
    page.select_option("#id_taxonomy_version", value=str(version.pk))
    page.fill("#id_guidelines", "## Labelling\n\nChoose the **stage** where the bug shows itself.")
    page.select_option("#id_raters", value=[str(r.pk) for r in raters])
    page.fill("#id_raters_per_issue", "2")
    expect(page.locator("#id_blind")).to_be_checked()
    page.get_by_test_id("study-create-submit").click()
    page.wait_for_url("**/draw/")
    study = Study.objects.get(name="DDL bugs, browser flow")
    assert study.blind and study.raters_per_issue == 2 and study.taxonomy_version_id == version.pk

    # The draw form: a filtered frame (closed DeepSpeed issues), a size and a seed.
    page.select_option("#id_repositories", value=[str(deepspeed.pk)])
    page.select_option("#id_state", value="closed")
    page.select_option("#id_round_kind", value="main")
    page.fill("#id_size", "4")
    page.fill("#id_seed", "2025")
    page.get_by_test_id("sample-draw-submit").click()
    page.wait_for_url(f"**{reverse('annotator:study_detail', args=[study.pk])}")
    expect(page.locator("ul.messages")).to_contain_text("drew 4 of 12")
    return study


def _open_first_issue_with_keys(page, live_server, study) -> None:
    """From the queue, Tab to "Next issue" and press Enter."""
    page.goto(_url(live_server, "annotator:study_queue", study.pk))
    focus_by_tab(page, "next-issue")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/label/" in url)
    wait_for_labelling_script(page)


def _label_queue(page, labels: list[KeyboardLabels], *, forbidden: str | None = None) -> None:
    for step in labels:
        assert "/label/" in page.url, f"expected a labelling page, got {page.url}"
        if forbidden:
            assert forbidden not in page.content(), "another rater's note leaked into a labelling page"
        label_with_keyboard(page, step, dimension_keys=DDL_KEYS, multi=DDL_MULTI)
    assert page.url.endswith("/queue/"), "after the last issue the rater should land on the queue"
    expect(page.get_by_test_id("queue-done")).to_be_visible()


def test_two_raters_label_blind_with_the_keyboard_and_the_owner_sees_both_done(
    live_server, new_context, login, screenshot
):
    owner = make_owner("owner")
    rater_a = UserFactory(username="rater_a", display_name="Rater A")
    rater_b = UserFactory(username="rater_b", display_name="Rater B")
    call_command("load_taxonomy", "ddl-2025", verbosity=0)
    call_command("import_issues", str(DEMO_ISSUES), "--no-progress", verbosity=0)
    version = TaxonomyVersion.objects.get(taxonomy__slug="ddl-2025")
    deepspeed = Repository.objects.get(name="DeepSpeed")

    owner_page = login(new_context(), owner.username)
    study = _create_study_in_the_browser(
        owner_page, live_server, version=version, raters=[rater_a, rater_b], deepspeed=deepspeed
    )
    assert Assignment.objects.filter(study_issue__study=study).count() == 8
    assert set(
        Assignment.objects.filter(study_issue__study=study).values_list("study_issue__issue__repository", flat=True)
    ) == {deepspeed.pk}

    # Rater B labels all four, keyboard only.
    page_b = login(new_context(), rater_b.username)
    _open_first_issue_with_keys(page_b, live_server, study)
    _label_queue(page_b, B_LABELS)
    b_annotations = list(
        Annotation.objects.filter(assignment__rater=rater_b, assignment__study_issue__study=study).select_related(
            "assignment"
        )
    )
    assert len(b_annotations) == 4 and all(a.submitted_at and B_NOTE in a.note for a in b_annotations)

    # Rater A, in a separate context: autosave, J/K, then the same keyboard flow; never a trace of B.
    page_a = login(new_context(), rater_a.username)
    page_a.goto(_url(live_server, "annotator:study_queue", study.pk))
    assert B_NOTE not in page_a.content()
    _open_first_issue_with_keys(page_a, live_server, study)
    first_url = page_a.url
    page_a.keyboard.press("2")
    expect_saved_draft(page_a)  # autosave after a pause, through the API
    page_a.keyboard.press("Escape")  # out of the first filter, where J would filter
    page_a.keyboard.press("j")
    page_a.wait_for_url(lambda url: url != first_url)
    wait_for_labelling_script(page_a)
    assert B_NOTE not in page_a.content()
    page_a.keyboard.press("Escape")
    page_a.keyboard.press("k")
    page_a.wait_for_url(first_url)
    wait_for_labelling_script(page_a)
    assert checked_names(page_a, "stage") == [STAGE_NAMES["2"]], "the autosaved draft should survive J/K"
    screenshot(page_a, "labelling-draft")
    page_a.goto(_url(live_server, "annotator:study_queue", study.pk))
    expect(page_a.get_by_test_id("drafts")).to_be_visible()
    focus_by_tab(page_a, "next-issue")
    page_a.keyboard.press("Enter")
    page_a.wait_for_url(first_url)

    # The labelling page as the README shows it: every picker chosen, the note typed, not yet submitted.
    wait_for_labelling_script(page_a)
    page_a.keyboard.press("2")
    page_a.keyboard.press("Enter")
    for text in A_LABELS[0].filters:
        page_a.keyboard.type(text)
        page_a.keyboard.press("Enter")
    page_a.keyboard.press("Enter")  # the fix pattern allows several: the first Enter added, this one goes on
    page_a.keyboard.type(A_LABELS[0].note)
    expect_saved_draft(page_a)
    assert checked_names(page_a, "stage") == [STAGE_NAMES["2"]]
    assert checked_names(page_a, "fix_pattern") == ["version and dependency management"]
    page_a.evaluate("window.scrollTo(0, 0); document.querySelector('.label-side').scrollTop = 0")
    labelling_png = screenshot(page_a, "labelling")
    before = page_a.url
    page_a.keyboard.press("Control+Enter")
    page_a.wait_for_url(lambda url: url != before)
    for step in A_LABELS[1:2]:
        assert B_NOTE not in page_a.content(), "rater B's note leaked into a labelling page"
        label_with_keyboard(page_a, step, dimension_keys=DDL_KEYS, multi=DDL_MULTI)
    # Half-way: two submitted, one started, as the queue shows it.
    wait_for_labelling_script(page_a)
    page_a.keyboard.press("1")
    expect_saved_draft(page_a)
    page_a.goto(_url(live_server, "annotator:study_queue", study.pk))
    expect(page_a.get_by_test_id("progress")).to_have_text("2 / 4")
    expect(page_a.get_by_test_id("drafts")).to_be_visible()
    assert B_NOTE not in page_a.content()
    queue_png = screenshot(page_a, "queue")
    focus_by_tab(page_a, "next-issue")
    page_a.keyboard.press("Enter")
    page_a.wait_for_url(lambda url: "/label/" in url)
    wait_for_labelling_script(page_a)
    assert checked_names(page_a, "stage") == [STAGE_NAMES["1"]]
    _label_queue(page_a, A_LABELS[2:], forbidden=B_NOTE)

    # Blindness, checked where a curious rater would look.
    queue_html = page_a.content()
    assert B_NOTE not in queue_html
    for b_annotation in b_annotations:
        api = page_a.request.get(_url(live_server, "api:annotation_detail", b_annotation.pk))
        assert api.status == 404, f"rater A read rater B's annotation {b_annotation.pk}: {api.status}"
        page_response = page_a.goto(_url(live_server, "annotator:label", study.pk, b_annotation.assignment_id))
        assert page_response.status == 404
        assert B_NOTE not in page_a.content()
    mine = page_a.request.get(_url(live_server, "api:study_assignments_mine", study.pk) + "?limit=100")
    assert mine.status == 200 and B_NOTE not in mine.text() and len(mine.json()["results"]) == 4
    a_annotations = Annotation.objects.filter(assignment__rater=rater_a, assignment__study_issue__study=study)
    for a_annotation in a_annotations:
        own = page_a.request.get(_url(live_server, "api:annotation_detail", a_annotation.pk))
        assert own.status == 200 and B_NOTE not in own.text()
        page_a.goto(_url(live_server, "annotator:label", study.pk, a_annotation.assignment_id))
        assert B_NOTE not in page_a.content()
        expect(page_a.get_by_test_id("frozen-notice")).to_be_visible()
    # Where A and B chose differently, A's page shows A's choice (issue 1: stage 2 vs B's 4).
    first = a_annotations.order_by("assignment__study_issue__position").first()
    page_a.goto(_url(live_server, "annotator:label", study.pk, first.assignment_id))
    assert checked_names(page_a, "stage") == [STAGE_NAMES["2"]]
    assert Category.objects.filter(annotation_values__annotation=first, code="communication-setup").exists()

    # The owner's dashboard: 4/4 submitted by both raters, 4 issues labelled by both.
    owner_page.goto(_url(live_server, "annotator:study_detail", study.pk))
    expect(owner_page.get_by_test_id("issues-complete")).to_have_text("4")
    expect(owner_page.get_by_test_id("issues-total")).to_have_text("4")
    rows = owner_page.get_by_test_id("progress-table").locator("tbody tr")
    expect(rows).to_have_count(2)
    for name in ("Rater A", "Rater B"):
        cells = rows.filter(has_text=name).locator("td")
        # Round, rater, assigned, drafted, submitted, skipped, total.
        expect(cells.nth(4)).to_have_text("4")
        expect(cells.nth(6)).to_have_text("4")
    dashboard_png = screenshot(owner_page, "dashboard")

    if not os.environ.get("UPDATE_DOCS_SCREENSHOTS"):
        return  # the README's pictures change only when asked: UPDATE_DOCS_SCREENSHOTS=1 make test
    DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for source, name in ((labelling_png, "labelling.png"), (dashboard_png, "dashboard.png"), (queue_png, "queue.png")):
        shutil.copyfile(source, DOCS_SCREENSHOTS / name)


def test_saving_a_stale_tab_shows_the_conflict_and_loses_nothing(live_server, new_context, login):
    owner = make_owner("owner")
    rater_a, rater_b = UserFactory(username="rater_a"), UserFactory(username="rater_b")
    taxonomy = make_taxonomy()
    repo = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    for _ in range(2):
        IssueFactory(repository=repo)
    study = make_study(owner=owner, raters=[rater_a, rater_b], taxonomy=taxonomy, name="Two tabs")
    draw(study, actor=owner, size=2, seed=3)
    assignment = (
        Assignment.objects.filter(rater=rater_a, study_issue__study=study).order_by("study_issue__position").first()
    )
    url = _url(live_server, "annotator:label", study.pk, assignment.pk)
    leaf = taxonomy["cats"]["symptom"]

    context = new_context()
    first = login(context, rater_a.username)
    first.goto(url)
    second = context.new_page()
    second.goto(url)
    wait_for_labelling_script(first)
    wait_for_labelling_script(second)

    first.keyboard.press("1")
    expect_saved_draft(first)
    saved = Annotation.objects.get(assignment=assignment)
    assert saved.version == 2 and list(saved.values.values_list("category", flat=True)) == [leaf[0].pk]

    second.keyboard.press("2")
    live_error = second.get_by_test_id("live-error")
    expect(live_error).to_be_visible(timeout=10_000)
    expect(live_error).to_contain_text(CONFLICT_MESSAGE)
    expect(second.get_by_test_id("save-status")).to_have_text("Not saved")
    assert checked_names(second, "symptom") == [leaf[1].name], "the stale tab must keep what the rater chose"

    # Submitting from the stale tab is refused too, and the server keeps the first tab's draft.
    second.keyboard.press("Control+Enter")
    expect(live_error).to_contain_text("another tab")
    assert "/label/" in second.url
    after = Annotation.objects.get(assignment=assignment)
    assert after.version == 2 and after.submitted_at is None
    assert list(after.values.values_list("category", flat=True)) == [leaf[0].pk]

    # Reloading shows the saved version; the rater can carry on from there.
    second.reload()
    wait_for_labelling_script(second)
    assert checked_names(second, "symptom") == [leaf[0].name]
    expect(second.get_by_test_id("live-error")).to_be_hidden()
