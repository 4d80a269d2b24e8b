"""Labelling with the keys the README's "Labelling" table lists, and nothing else, in a real browser.

DocumentedKeys refuses any key the README does not list; the labels are then read back from the database.
"""

import os
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from annotator.models import Annotation, Assignment
from taxonomy.models import TaxonomyVersion
from tests.annotator.studies.factories import draw, make_owner, make_study
from tests.annotator.worlds import build_world
from tests.e2e.helpers import DocumentedKeys, checked_names, focused_testid, wait_for_labelling_script
from tests.factories import UserFactory
from tests.readme import readme_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

INVALID = re.compile(r"\bis-invalid\b")
DEMO_ISSUES = Path(settings.BASE_DIR) / "annotator" / "demo" / "demo_issues.json"


def _url(live_server, name: str, *args) -> str:
    return f"{live_server.url}{reverse(name, args=args)}"


def _stored(assignment_pk: int) -> tuple[dict[str, list[str]], dict[str, str], str, bool]:
    annotation = Annotation.objects.get(assignment_id=assignment_pk)
    values: dict[str, list[str]] = {}
    for value in annotation.values.select_related("dimension", "category"):
        values.setdefault(value.dimension.key, []).append(value.category.code)
    submitted = bool(annotation.submitted_at)
    return {k: sorted(v) for k, v in values.items()}, annotation.proposals, annotation.note, submitted


def _submit(page, keys: DocumentedKeys) -> None:
    before = page.url
    keys.press("Ctrl+Enter")
    page.wait_for_url(lambda url: url != before)
    page.wait_for_load_state()


def _status(page, key: str):
    return page.get_by_test_id(f"picker-status-{key}")


def test_a_rater_labels_three_issues_with_the_readme_keys_only(live_server, new_context, login, screenshot):
    owner = make_owner("owner")
    rater = UserFactory(username="rater_a")
    call_command("load_taxonomy", "ddl-2025", verbosity=0)
    call_command("import_issues", str(DEMO_ISSUES), "--no-progress", verbosity=0)
    version = TaxonomyVersion.objects.get(taxonomy__slug="ddl-2025")
    study = make_study(
        owner=owner, raters=[rater, UserFactory(username="rater_b")], taxonomy={"version": version}, name="Keys"
    )
    draw(study, actor=owner, size=3, seed=11)
    mine = list(
        Assignment.objects.filter(rater=rater, study_issue__study=study)
        .order_by("study_issue__position")
        .values_list("pk", flat=True)
    )

    page = login(new_context(), rater.username)
    page.goto(_url(live_server, "annotator:study_next", study.pk))
    wait_for_labelling_script(page)
    keys = DocumentedKeys(page)
    assert page.url.endswith(f"/label/{mine[0]}/")

    # `?` shows the same table as the README, and closes again back to where the rater was.
    assert focused_testid(page) == "picker-filter-stage"
    keys.press("?")
    help_table = page.get_by_test_id("keys-table")
    expect(help_table).to_be_visible()
    screenshot(page, "labelling-help")
    rows = help_table.locator("tbody tr")
    expect(rows).to_have_count(len(readme_table("Labelling")))
    for row, (key_cell, does_cell) in zip(rows.all(), readme_table("Labelling"), strict=True):
        cells = row.locator("td")
        assert cells.nth(0).inner_text() == key_cell.replace("`", "")
        assert cells.nth(1).inner_text() == does_cell.replace("`", "")
    keys.press("?")
    expect(help_table).to_be_hidden()
    assert focused_testid(page) == "picker-filter-stage"

    # Issue 1. "training" highlights the category named so, not the one whose definition mentions training.
    keys.type("training")
    expect(_status(page, "stage")).to_have_text("Enter chooses: training and evaluation")
    highlighted = page.locator("#picker-stage .opt.is-highlighted .opt-name")
    expect(highlighted).to_have_text("training and evaluation")
    found_in_definition = page.locator("#picker-stage .opt.match-def .opt-name")
    expect(found_in_definition).to_have_text(["communication setup"])
    expect(page.locator("#picker-stage .opt-sep")).to_be_visible()
    type_ahead_png = screenshot(page, "labelling-type-ahead")
    if os.environ.get("UPDATE_DOCS_SCREENSHOTS"):  # the README's picture of the type-ahead, as the flow test's
        shutil.copyfile(type_ahead_png, Path(settings.BASE_DIR) / "docs" / "screenshots" / "labelling-type-ahead.png")
    keys.press("Enter")
    assert focused_testid(page) == "picker-filter-symptom"
    keys.press("2")  # digits choose after the first dimension too: nothing is typed into the filter
    assert page.get_by_test_id("picker-filter-symptom").input_value() == ""
    expect(_status(page, "symptom")).to_have_text("Chosen: memory issue")
    keys.press("Enter")
    keys.type("misused")
    keys.press("Enter")
    assert focused_testid(page) == "picker-filter-fix_pattern"
    keys.press("1", "2")  # several allowed: each digit adds ...
    assert checked_names(page, "fix_pattern") == [
        "version and dependency management",
        "distributed feature, API, and communication tuning",
    ]
    keys.press("2")  # ... or removes
    expect(_status(page, "fix_pattern")).to_contain_text("Removed: distributed feature")
    assert focused_testid(page) == "picker-filter-fix_pattern"
    keys.press("Enter")  # nothing typed: on to the note
    keys.write("note", "hangs in the first step")
    _submit(page, keys)
    assert _stored(mine[0]) == (
        {
            "stage": ["training-and-evaluation"],
            "symptom": ["memory-issue"],
            "root_cause": ["misused-framework-api"],
            "fix_pattern": ["version-and-dependency-management"],
        },
        {},
        "hangs in the first step",
        True,
    )

    # Issue 2. Enter on no match stays and says so; P proposes; Tab and Shift+Tab move between dimensions.
    assert page.url.endswith(f"/label/{mine[1]}/")
    wait_for_labelling_script(page)
    keys.type("zzz")
    keys.press("Enter")
    assert focused_testid(page) == "picker-filter-stage"
    expect(_status(page, "stage")).to_contain_text("No category matches “zzz”")
    expect(_status(page, "stage")).to_have_class("picker-status is-error")
    keys.press("Esc")
    assert page.get_by_test_id("picker-filter-stage").input_value() == ""
    keys.press("Esc")  # nothing typed: out of the filter, so P proposes
    keys.press("P")
    keys.write("proposal-stage", "compiler toolchain setup")
    keys.press("Enter")
    assert focused_testid(page) == "picker-filter-symptom"
    keys.press("Tab")
    assert focused_testid(page) == "picker-filter-root_cause"
    keys.press("Shift+Tab")
    assert focused_testid(page) == "picker-filter-symptom"
    keys.type("setup")
    keys.press("Enter")
    keys.type("dependency")
    keys.press("Enter")
    keys.type("tuning")
    keys.press("Enter")
    expect(_status(page, "fix_pattern")).to_contain_text("Added: distributed feature, API, and communication tuning")
    keys.press("Enter")
    keys.write("note", "needs a new stage")
    _submit(page, keys)
    assert _stored(mine[1]) == (
        {
            "symptom": ["setup-failure"],
            "root_cause": ["dependency-or-hardware-mismatch"],
            "fix_pattern": ["distributed-feature-api-and-communication-tuning"],
        },
        {"stage": "compiler toolchain setup"},
        "needs a new stage",
        True,
    )

    # Issue 3. Digits, the arrows and 0; Tab after the last dimension reaches the note.
    assert page.url.endswith(f"/label/{mine[2]}/")
    wait_for_labelling_script(page)
    keys.press("4", "Enter")
    keys.press("↓", "↓")
    expect(_status(page, "symptom")).to_have_text("Enter chooses: memory issue")
    keys.press("Enter")
    keys.press("1", "0")
    assert checked_names(page, "root_cause") == []
    keys.press("3", "Tab")
    keys.press("2", "Tab")
    keys.write("note", "digits only")
    _submit(page, keys)
    assert _stored(mine[2]) == (
        {
            "stage": ["training-and-evaluation"],
            "symptom": ["memory-issue"],
            "root_cause": ["dependency-or-hardware-mismatch"],
            "fix_pattern": ["distributed-feature-api-and-communication-tuning"],
        },
        {},
        "digits only",
        True,
    )
    assert page.url.endswith("/queue/")


def test_a_refused_submit_marks_the_dimensions_it_names_and_keeps_the_choices(live_server, new_context, login, users):
    world = build_world(users, n_issues=1)
    page = login(new_context(), "rater_a")
    page.goto(_url(live_server, "annotator:label", world.study.pk, world.a.pk))
    wait_for_labelling_script(page)
    keys = DocumentedKeys(page)
    keys.press("2")  # symptom; root cause, also required, stays empty
    keys.press("Ctrl+Enter")
    error = page.get_by_test_id("live-error")
    expect(error).to_contain_text("Choose a category for Root Cause")
    expect(page.get_by_test_id("picker-root_cause")).to_have_class(INVALID)
    expect(page.get_by_test_id("picker-filter-root_cause")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_test_id("picker-status-root_cause")).to_contain_text("Choose a category for Root Cause")
    assert "is-invalid" not in page.get_by_test_id("picker-symptom").get_attribute("class")
    assert focused_testid(page) == "picker-filter-root_cause"
    assert checked_names(page, "symptom") == [world.cats["symptom"][1].name]
    assert "/label/" in page.url and Annotation.objects.get(pk=world.a.annotation.pk).submitted_at is None

    keys.press("1")  # choosing clears the mark; the submit goes through
    expect(page.get_by_test_id("picker-root_cause")).not_to_have_class(INVALID)
    before = page.url
    keys.press("Ctrl+Enter")
    page.wait_for_url(lambda url: url != before)
    assert Annotation.objects.get(pk=world.a.annotation.pk).submitted_at is not None


def test_definitions_show_on_highlight_and_filtering_saves_nothing(live_server, new_context, login, users):
    world = build_world(users, n_issues=1)
    context = new_context()
    page = login(context, "rater_a")
    drafts = []
    page.on("request", lambda request: request.method == "PUT" and drafts.append(request.url))
    page.goto(_url(live_server, "annotator:label", world.study.pk, world.a.pk))
    wait_for_labelling_script(page)
    keys = DocumentedKeys(page)
    first, second = (page.locator(f"#def-{c.pk}") for c in world.cats["symptom"][:2])
    expect(first).to_be_hidden()  # compact: definitions wait for hover, focus or the highlight
    keys.press("↓")
    expect(first).to_be_visible()
    expect(second).to_be_hidden()
    keys.type("leaf")
    page.wait_for_timeout(2500)  # past the autosave delay: filtering and highlighting changed nothing saved
    assert drafts == []

    keys.press("Enter")
    expect(page.get_by_test_id("save-status")).to_contain_text("Draft saved", timeout=10_000)
    assert len(drafts) == 1, drafts

    page.get_by_test_id("definitions-all").check()  # the mouse's way to every definition, remembered
    expect(second).to_be_visible()
    page.reload()
    wait_for_labelling_script(page)
    expect(page.locator(f"#def-{world.cats['symptom'][1].pk}")).to_be_visible()
    assert len(drafts) == 1, "ticking 'every definition' is not a change to the labels"
