"""Sign-in attempts are limited per account and per address, on the login page and the admin's login."""

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from tests.factories import UserFactory
from tests.redis_server import TEST_REDIS_URL, redis_or_skip

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"
LIMITS = {"LOGIN_ATTEMPTS_PER_ACCOUNT": 5, "LOGIN_ATTEMPTS_PER_ADDRESS": 30, "LOGIN_ATTEMPTS_WINDOW_SECONDS": 900}


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    with override_settings(**LIMITS):
        yield
    cache.clear()


def login(client, username, password, *, address="10.1.0.1", url="/accounts/login/", **headers):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address, **headers)


def test_a_hundred_wrong_passwords_are_refused_after_the_limit():
    UserFactory(username="victim")
    client = Client()
    statuses = [login(client, "victim", f"guess{i}").status_code for i in range(100)]
    assert statuses[:5] == [200] * 5, "the first attempts are checked (wrong password: the form again)"
    assert set(statuses[5:]) == {429}, "past the limit every attempt is refused"
    refused = login(client, "victim", PASSWORD)
    assert refused.status_code == 429, "while locked, even the right password is refused"
    assert "_auth_user_id" not in client.session
    assert b"Try again in 15 minutes" in refused.content
    assert 840 < int(refused["Retry-After"]) <= 900


def test_the_account_lock_holds_across_addresses_and_letter_case():
    UserFactory(username="victim")
    for i in range(5):
        login(Client(), "victim", "wrong", address=f"10.2.0.{i}")
    assert login(Client(), "Victim", PASSWORD, address="10.2.0.99").status_code == 429


def test_a_correct_password_within_the_limit_signs_in_and_starts_the_count_afresh():
    UserFactory(username="forgetful")
    for _ in range(4):
        login(Client(), "forgetful", "wrong")
    assert login(Client(), "forgetful", PASSWORD).status_code == 302
    for _ in range(4):
        assert login(Client(), "forgetful", "wrong").status_code == 200
    assert login(Client(), "forgetful", PASSWORD).status_code == 302


def test_one_address_trying_many_accounts_is_refused_and_others_are_not():
    UserFactory(username="alice")
    statuses = [login(Client(), f"someone{i}", "wrong", address="10.3.0.1").status_code for i in range(31)]
    assert statuses[:30] == [200] * 30 and statuses[30] == 429
    assert login(Client(), "alice", PASSWORD, address="10.3.0.1").status_code == 429
    assert login(Client(), "alice", PASSWORD, address="10.3.0.2").status_code == 302


def test_a_forged_forwarded_for_header_does_not_make_a_new_address():
    statuses = [
        login(Client(), f"someone{i}", "wrong", address="10.4.0.1", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
        for i in range(31)
    ]
    assert statuses[30] == 429


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_a_configured_proxy_the_forwarded_address_is_the_client():
    for i in range(30):
        login(Client(), f"someone{i}", "wrong", address="10.5.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert login(Client(), "x", "wrong", address="10.5.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7").status_code == 429
    assert login(Client(), "x", "wrong", address="10.5.0.1", HTTP_X_FORWARDED_FOR="198.51.100.8").status_code == 200


def test_the_admin_login_shares_the_limit_and_says_when_to_try_again():
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    client = Client()
    for _ in range(5):
        login(client, "boss", "wrong", url="/admin/login/")
    refused = login(client, "boss", PASSWORD, url="/admin/login/")
    assert refused.status_code == 429, "the admin login answers like the login page"
    assert 840 < int(refused["Retry-After"]) <= 900
    assert b"Too many failed sign-in attempts. Try again in 15 minutes" in refused.content
    assert "_auth_user_id" not in client.session
    assert login(Client(), "boss", PASSWORD).status_code == 429, "the login page shares the admin's count"


@pytest.mark.redis
def test_the_limit_works_on_the_shared_redis_cache():
    redis_or_skip()
    UserFactory(username="victim")
    redis_cache = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": TEST_REDIS_URL}}
    with override_settings(CACHES=redis_cache):
        cache.clear()
        try:
            statuses = [login(Client(), "victim", "wrong").status_code for _ in range(7)]
            refused = login(Client(), "victim", PASSWORD)
        finally:
            cache.clear()
    assert statuses == [200] * 5 + [429] * 2
    assert refused.status_code == 429 and 840 < int(refused["Retry-After"]) <= 900


def test_after_the_window_the_account_can_sign_in_again():
    UserFactory(username="victim")
    with override_settings(LOGIN_ATTEMPTS_WINDOW_SECONDS=1):
        for _ in range(6):
            login(Client(), "victim", "wrong")
        assert login(Client(), "victim", PASSWORD).status_code == 429
        import time

        time.sleep(1.1)
        assert login(Client(), "victim", PASSWORD).status_code == 302
