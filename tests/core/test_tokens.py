"""The personal token page: create (key shown once), regenerate, revoke; CSRF on every POST."""

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/account/tokens/"


@pytest.fixture
def user():
    return UserFactory(username="tokenuser")


@pytest.fixture
def browser(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def post(client, action):
    token = client.get(URL).cookies.get("csrftoken") or client.cookies["csrftoken"]
    return client.post(URL, {"action": action, "csrfmiddlewaretoken": token.value})


def test_login_required():
    response = Client().get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_create_shows_the_key_once_and_it_authenticates(browser, user):
    assert b"You have no token" in browser.get(URL).content
    response = post(browser, "create")
    key = Token.objects.get(user=user).key
    assert response.status_code == 200 and key.encode() in response.content
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    assert key.encode() not in browser.get(URL).content, "the key must not be shown again"
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/issues/").status_code == 200


def test_regenerate_replaces_the_old_key(browser, user):
    post(browser, "create")
    old = Token.objects.get(user=user).key
    post(browser, "regenerate")
    new = Token.objects.get(user=user).key
    assert new != old
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    assert api.get("/api/v1/issues/").status_code == 401


def test_revoke_deletes_the_token(browser, user):
    post(browser, "create")
    response = post(browser, "revoke")
    assert response.status_code == 302 and not Token.objects.filter(user=user).exists()


def test_post_without_csrf_token_is_refused_and_changes_nothing(browser, user):
    Token.objects.create(user=user)
    before = Token.objects.get(user=user).key
    assert browser.post(URL, {"action": "revoke"}).status_code == 403
    assert browser.post(URL, {"action": "regenerate"}).status_code == 403
    assert Token.objects.get(user=user).key == before


def test_a_user_only_ever_touches_their_own_token(browser, user):
    other = UserFactory(username="other")
    theirs = Token.objects.create(user=other).key
    post(browser, "regenerate")
    post(browser, "revoke")
    assert Token.objects.get(user=other).key == theirs


def test_unknown_action_changes_nothing(browser, user):
    assert post(browser, "steal").status_code == 302
    assert not Token.objects.filter(user=user).exists()
