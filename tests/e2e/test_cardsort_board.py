"""The card-sorting board in a real browser: keyboard and drag and drop, decisions kept across reloads."""

import pytest

from annotator.models import ProposalDecision
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services import version_publish
from tests.annotator.worlds import build_world, label_all
from tests.factories import make_taxonomy_maintainer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def labelled(users):
    make_taxonomy_maintainer(users["owner"])  # applying the sort drafts the next taxonomy version
    world = build_world(users)
    version_publish(version=world.study.taxonomy_version)
    label_all(world, users, proposals=True)
    return world


def test_owner_sorts_proposals_with_keyboard_and_mouse_then_applies_them(
    live_server, new_context, login, labelled, screenshot
):
    page = login(new_context(), "owner")
    page.goto(f"{live_server.url}/studies/{labelled.study.pk}/cardsort/")
    column = page.locator("[data-testid=cs-column-stage]")
    cards = column.locator("[data-testid=cs-card]")
    assert cards.count() == 2
    screenshot(page, "cardsort-board")

    # Keyboard: focus the first card, select it with Space, arrow down to the last category, press M.
    cards.first.focus()
    page.keyboard.press("Space")
    assert cards.first.get_attribute("aria-selected") == "true"
    categories = column.locator("[data-testid=cs-category]")
    for _ in range(cards.count() + categories.count()):
        page.keyboard.press("ArrowDown")
    focused_target = page.evaluate("document.activeElement.dataset.target")
    with page.expect_navigation():
        page.keyboard.press("m")
    decision = ProposalDecision.objects.get()
    assert decision.action == "alias" and str(decision.target_lineage_id) == focused_target

    # The board resumes: one card left; drag it onto the first leaf category with the mouse.
    assert column.locator("[data-testid=cs-card]").count() == 1
    assert column.locator("[data-testid=cs-decision]").count() == 1
    leaf = column.locator("[data-testid=cs-category]").nth(1)
    with page.expect_navigation():
        column.locator("[data-testid=cs-card]").first.drag_to(leaf)
    assert ProposalDecision.objects.filter(action="alias").count() == 2

    # Undo the second one, then make it a new category with N.
    with page.expect_navigation():
        column.locator("[data-testid=cs-decision] button").last.click()
    card = column.locator("[data-testid=cs-card]").first
    card.focus()
    page.keyboard.press("Space")
    page.keyboard.press("n")
    page.keyboard.type("collective timeout")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert ProposalDecision.objects.filter(action="new", new_category_name="collective timeout").count() == 1

    with page.expect_navigation():
        page.click("[data-testid=cs-apply]")
    draft = TaxonomyVersion.objects.get(based_on=labelled.study.taxonomy_version)
    assert page.url.endswith(f"/v{draft.number}/edit/")
    assert "added 'collective timeout'" in page.locator("[data-testid=changelog]").inner_text()
    assert Category.objects.filter(dimension__version=draft, name="collective timeout").exists()
    screenshot(page, "cardsort-applied-draft")
