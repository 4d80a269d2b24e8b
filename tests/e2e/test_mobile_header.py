"""At 390 px (a phone held upright) the header fits the screen: every navigation link and the account menu
can be seen and used, and axe finds nothing on the page."""

import pytest
from playwright.sync_api import expect

from tests.annotator.studies.factories import make_owner
from tests.e2e.accessibility import axe_violations, violations_report

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
NAVIGATION = {
    "Studies": "/studies/",
    "Issues": "/issues/",
    "Taxonomies": "/taxonomies/",
    "Imports": "/imports/",
    "Components": "/imports/components/",
}


def _within_screen(locator) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], f"{locator} is cut off at {box}"


def test_the_header_works_at_390_px(live_server, new_context, login):
    make_owner("owner")  # an owner sees every link, Imports and Components included
    context = new_context()
    page = login(context, "owner")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/studies/")
    nav = page.get_by_role("navigation", name="Main")
    for name, path in NAVIGATION.items():
        link = nav.get_by_role("link", name=name, exact=True)
        expect(link).to_be_visible()
        _within_screen(link)
        link.click()
        page.wait_for_url(f"**{path}")
        expect(
            page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True)
        ).to_have_attribute("aria-current", "page")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"

    menu = page.get_by_test_id("account-menu")
    _within_screen(menu)
    menu.click()
    tokens = page.get_by_role("link", name="API tokens")
    expect(tokens).to_be_visible()
    _within_screen(tokens)
    tokens.click()
    page.wait_for_url("**/account/tokens/")

    page.goto(f"{live_server.url}/studies/")
    violations = axe_violations(page)
    assert not violations, violations_report({"study list at 390 px": violations})
