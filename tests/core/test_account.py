"""The account pages: reachable from the account menu; changing one's password revokes one's API token."""

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.tokens import token_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
OLD = "correct horse battery staple"
NEW = "a quite different passphrase 42"


@pytest.fixture
def user():
    return UserFactory(username="changer")


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def api_status(key: str) -> int:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api.get("/api/v1/issues/").status_code


def test_the_header_has_an_account_menu_with_password_and_tokens(browser):
    html = browser.get("/issues/").content.decode()
    assert 'data-testid="account-menu"' in html
    for href in ('href="/account/"', 'href="/account/password/"', 'href="/account/tokens/"'):
        assert href in html


def test_the_account_page_shows_the_token_status(browser, user):
    assert "You have no token" in browser.get("/account/").content.decode()
    token_issue(user=user)
    assert "You have a token" in browser.get("/account/").content.decode()


@pytest.mark.parametrize("url", ["/account/", "/account/password/"])
def test_the_account_pages_need_a_login(url):
    response = Client().get(url)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_changing_the_password_revokes_the_token_and_keeps_the_session(browser, user):
    key = token_issue(user=user).key
    assert api_status(key) == 200
    response = browser.post("/account/password/", {"old_password": OLD, "new_password1": NEW, "new_password2": NEW})
    assert response.status_code == 302 and response["Location"] == "/account/"
    assert api_status(key) == 401
    assert not Token.objects.filter(user=user).exists()
    assert browser.get("/account/").status_code == 200, "the session that changed the password stays signed in"
    user.refresh_from_db()
    assert user.check_password(NEW)


def test_a_wrong_old_password_changes_nothing(browser, user):
    key = token_issue(user=user).key
    response = browser.post("/account/password/", {"old_password": "wrong", "new_password1": NEW, "new_password2": NEW})
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.check_password(OLD) and Token.objects.get(user=user).key == key


def test_a_password_changed_in_the_admin_revokes_the_token(user):
    key = token_issue(user=user).key
    admin = Client()
    admin.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    response = admin.post(f"/admin/core/user/{user.pk}/password/", {"password1": NEW, "password2": NEW})
    assert response.status_code == 302
    assert api_status(key) == 401


def test_a_password_set_on_the_command_line_revokes_the_token(user, monkeypatch):
    key = token_issue(user=user).key
    monkeypatch.setattr("getpass.getpass", lambda prompt="": NEW)
    call_command("changepassword", "changer", stdout=None)
    assert api_status(key) == 401


def test_saving_a_user_without_a_new_password_keeps_the_token(user):
    key = token_issue(user=user).key
    user.first_name = "Renamed"
    user.save()
    assert api_status(key) == 200
