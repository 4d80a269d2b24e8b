import pytest

from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_user_logs_in_through_the_form_and_lands_on_the_issue_list(live_server, new_context, login):
    UserFactory(username="rater_a")
    page = login(new_context(), "rater_a")
    assert page.url.rstrip("/").endswith("/issues")


def test_a_wrong_password_keeps_the_user_out(live_server, new_context):
    UserFactory(username="rater_a")
    page = new_context().new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "rater_a")
    page.fill("#id_password", "wrong")
    page.press("#id_password", "Enter")
    page.wait_for_load_state()
    assert "/accounts/login/" in page.url
    assert page.locator(".error").is_visible()
