"""In the browser: images from other sites wait behind "Load images", and the account menu opens."""

import pytest

from tests.annotator.factories_issues import IssueFactory
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_images_load_only_after_the_rater_asks(live_server, new_context, login):
    UserFactory(username="rater_a")
    src = f"{live_server.url}/static/favicon.svg"
    issue = IssueFactory(body=f"See the curve:\n\n![loss curve]({src})")
    page = login(new_context(), "rater_a")
    page.goto(f"{live_server.url}/issues/{issue.pk}/")
    assert page.locator(".md img").count() == 0
    assert page.locator(".md a.external-image").get_attribute("href") == src
    page.get_by_test_id("load-images").click()
    page.wait_for_load_state()
    assert "images=load" in page.url
    assert page.locator(".md img").first.get_attribute("src") == src
    assert page.locator(".md img").first.get_attribute("alt") == "loss curve"


def test_the_account_menu_leads_to_password_and_tokens(live_server, new_context, login):
    UserFactory(username="rater_a")
    page = login(new_context(), "rater_a")
    page.get_by_test_id("account-menu").click()
    page.get_by_role("link", name="API tokens").click()
    page.wait_for_load_state()
    assert page.url.endswith("/account/tokens/")
    page.get_by_test_id("account-menu").click()
    page.get_by_role("link", name="Change password").click()
    page.wait_for_load_state()
    assert page.url.endswith("/account/password/")
