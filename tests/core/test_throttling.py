"""The API throttles (DRF's, keyed by client address as the sign-in limits are): at most the rate, then a
Retry-After; a forged X-Forwarded-For does not make a new client."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from rest_framework.test import APIRequestFactory

from core.throttling import AnonRateThrottle, UserRateThrottle
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def _throttle(cls, rate: str):
    class Limited(cls):
        pass

    Limited.rate = rate
    return Limited()


def _request(user=None, address="10.0.0.1"):
    request = APIRequestFactory().get("/api/v1/", REMOTE_ADDR=address)
    request.user = user or AnonymousUser()
    return request


@pytest.mark.django_db
def test_a_user_gets_the_rate_then_is_refused_with_the_seconds_to_wait():
    user = UserFactory()
    answers = [_throttle(UserRateThrottle, "3/min").allow_request(_request(user), None) for _ in range(4)]
    assert answers == [True, True, True, False]
    refused = _throttle(UserRateThrottle, "3/min")
    assert refused.allow_request(_request(user), None) is False
    assert 55 < refused.wait() <= 60


@pytest.mark.django_db
def test_users_and_addresses_are_counted_apart():
    first, second = UserFactory(), UserFactory()
    for _ in range(2):
        assert _throttle(UserRateThrottle, "2/min").allow_request(_request(first), None)
    assert _throttle(UserRateThrottle, "2/min").allow_request(_request(second), None)
    assert _throttle(AnonRateThrottle, "1/min").allow_request(_request(address="10.0.0.2"), None)
    assert _throttle(AnonRateThrottle, "1/min").allow_request(_request(address="10.0.0.3"), None)
    assert not _throttle(AnonRateThrottle, "1/min").allow_request(_request(address="10.0.0.3"), None)


def test_a_forged_forwarded_for_header_does_not_escape_the_anonymous_throttle():
    requests = [_request(address="10.0.0.20") for _ in range(65)]
    for i, request in enumerate(requests):
        request.META["HTTP_X_FORWARDED_FOR"] = f"203.0.113.{i}, 198.51.100.{i}"
    answers = [_throttle(AnonRateThrottle, "60/min").allow_request(request, None) for request in requests]
    assert answers.count(True) == 60 and answers[60:] == [False] * 5


def test_behind_a_configured_proxy_the_throttle_counts_the_forwarded_address(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    first, second = _request(address="10.0.0.21"), _request(address="10.0.0.21")
    first.META["HTTP_X_FORWARDED_FOR"] = "198.51.100.1"
    second.META["HTTP_X_FORWARDED_FOR"] = "198.51.100.2"
    assert _throttle(AnonRateThrottle, "1/min").allow_request(first, None)
    assert _throttle(AnonRateThrottle, "1/min").allow_request(second, None)
    assert not _throttle(AnonRateThrottle, "1/min").allow_request(first, None)


def test_the_default_user_rate_leaves_room_for_autosave_and_stops_a_runaway_client():
    from rest_framework.settings import api_settings

    rate = api_settings.DEFAULT_THROTTLE_RATES["user"]
    count, period = UserRateThrottle().parse_rate(rate)
    per_minute = count * 60 / period
    assert 40 * 5 <= per_minute <= 1000  # an autosave every 1.5 s is 40 a minute
