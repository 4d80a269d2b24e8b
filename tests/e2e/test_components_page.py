"""In the browser: a taxonomy maintainer opens a repository's Components page from the navigation, adds a rule and
sees the unmapped paths shrink; a pattern that cannot be read is refused with its field marked; axe finds nothing
on the page in either state; a rater has no Components link and is refused the page."""

import pytest
from playwright.sync_api import expect

from annotator.models import ComponentRule
from tests.annotator.factories_issues import (
    FixDetailFactory,
    FixFileFactory,
    IssueFactory,
    IssueLinkFactory,
    RepositoryFactory,
)
from tests.e2e.accessibility import axe_violations, violations_report
from tests.factories import make_taxonomy_maintainer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CHANGED = ["deepspeed/runtime/zero/stage3.py", "deepspeed/runtime/zero/partition.py", "setup.py"]


@pytest.fixture
def deepspeed(users):
    """DeepSpeed with no component rules yet and one fix that changed three files."""
    repository = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    detail = FixDetailFactory(link=IssueLinkFactory(issue=IssueFactory(repository=repository)))
    for path in CHANGED:
        FixFileFactory(detail=detail, path=path)
    make_taxonomy_maintainer(users["rater_b"])  # neither a study owner nor staff: no Imports link
    return repository


def test_a_maintainer_adds_a_rule_and_a_bad_pattern_is_refused(live_server, new_context, login, deepspeed):
    page = login(new_context(), "rater_b")
    page.goto(f"{live_server.url}/studies/", timeout=30_000)
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Imports", exact=True)).to_have_count(0)
    nav.get_by_role("link", name="Components", exact=True).click()
    page.wait_for_url("**/imports/components/")
    page.get_by_role("link", name="deepspeedai/DeepSpeed").click()
    page.wait_for_url(f"**/imports/repositories/{deepspeed.pk}/components/")
    expect(nav.get_by_role("link", name="Components", exact=True)).to_have_attribute("aria-current", "page")
    unmapped = page.locator("table.unmapped-paths tbody tr")
    expect(unmapped).to_have_count(3)
    found = {"components page": axe_violations(page)}

    page.get_by_label("Pattern").fill("deepspeed/runtime/zero/**")
    page.get_by_label("Component").fill("ZeRO")
    page.get_by_role("button", name="Add at the end").click()
    expect(page.get_by_text("deepspeed/runtime/zero/** → ZeRO added.")).to_be_visible()
    expect(page.locator("table.component-rules tbody tr")).to_have_count(1)
    expect(unmapped).to_have_count(1)
    expect(unmapped.first).to_contain_text("setup.py")

    page.get_by_label("Pattern").fill("deepspeed/[zero")
    page.get_by_label("Component").fill("Broken")
    page.get_by_role("button", name="Add at the end").click()
    pattern = page.get_by_label("Pattern")
    expect(pattern).to_have_attribute("aria-invalid", "true")
    expect(pattern).to_have_accessible_description(
        "“deepspeed/[zero” opens a character set with [ that is never closed with ]."
    )
    expect(page.get_by_label("Component")).not_to_have_attribute("aria-invalid", "true")
    expect(page.get_by_test_id("pattern-error")).to_be_visible()
    expect(page.locator("table.component-rules tbody tr")).to_have_count(1)
    found["components page, a pattern refused"] = axe_violations(page)
    assert list(ComponentRule.objects.values_list("pattern", "component")) == [("deepspeed/runtime/zero/**", "ZeRO")]
    assert not any(found.values()), violations_report(found)


def test_a_rater_has_no_components_link_and_is_refused_the_page(live_server, new_context, login, deepspeed):
    page = login(new_context(), "rater_a")
    page.goto(f"{live_server.url}/studies/", timeout=30_000)
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Studies", exact=True)).to_be_visible()
    expect(nav.get_by_role("link", name="Components", exact=True)).to_have_count(0)
    response = page.goto(f"{live_server.url}/imports/repositories/{deepspeed.pk}/components/")
    assert response.status == 403
