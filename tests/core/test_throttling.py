"""The counting throttles: at most the rate per window, a Retry-After that says when the window ends."""

import time

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from rest_framework.test import APIRequestFactory

from core.throttling import CountingAnonRateThrottle, CountingUserRateThrottle
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
def test_a_user_gets_the_rate_then_is_refused_until_the_window_ends():
    user = UserFactory()
    answers = [_throttle(CountingUserRateThrottle, "3/min").allow_request(_request(user), None) for _ in range(4)]
    assert answers == [True, True, True, False]
    refused = _throttle(CountingUserRateThrottle, "3/min")
    assert refused.allow_request(_request(user), None) is False
    assert 55 < refused.wait() <= 60


@pytest.mark.django_db
def test_users_and_addresses_are_counted_apart():
    first, second = UserFactory(), UserFactory()
    for _ in range(2):
        assert _throttle(CountingUserRateThrottle, "2/min").allow_request(_request(first), None)
    assert _throttle(CountingUserRateThrottle, "2/min").allow_request(_request(second), None)
    assert _throttle(CountingAnonRateThrottle, "1/min").allow_request(_request(address="10.0.0.2"), None)
    assert _throttle(CountingAnonRateThrottle, "1/min").allow_request(_request(address="10.0.0.3"), None)
    assert not _throttle(CountingAnonRateThrottle, "1/min").allow_request(_request(address="10.0.0.3"), None)


def test_a_new_window_opens_when_the_last_one_ends():
    assert _throttle(CountingAnonRateThrottle, "1/s").allow_request(_request(), None)
    assert not _throttle(CountingAnonRateThrottle, "1/s").allow_request(_request(), None)
    time.sleep(1.1)
    assert _throttle(CountingAnonRateThrottle, "1/s").allow_request(_request(), None)


def test_the_cost_does_not_grow_with_the_number_of_requests():
    # DRF's own throttles keep a list of request times: a busy client's list is pickled both ways on every call.
    throttle = _throttle(CountingAnonRateThrottle, "100000/min")
    for _ in range(500):
        assert throttle.allow_request(_request(), None)
    assert cache.get(throttle.key) == 500


def test_with_the_redis_cache_a_refused_client_is_told_the_seconds_left():
    from core.cache import ReusedClientRedisCache
    from tests.conftest import TEST_REDIS_URL, redis_or_skip

    redis_or_skip()
    shared = ReusedClientRedisCache(TEST_REDIS_URL, {"KEY_PREFIX": "taxonomist-throttle-test"})
    shared.delete("throttle-count_anon_10.0.0.9")

    class Limited(CountingAnonRateThrottle):
        cache = shared
        rate = "2/min"

    answers = [Limited().allow_request(_request(address="10.0.0.9"), None) for _ in range(2)]
    refused = Limited()
    assert answers == [True, True] and refused.allow_request(_request(address="10.0.0.9"), None) is False
    assert 55 <= refused.wait() <= 60
    shared.delete("throttle-count_anon_10.0.0.9")


def test_a_forged_forwarded_for_header_does_not_escape_the_anonymous_throttle():
    requests = [_request(address="10.0.0.20") for _ in range(65)]
    for i, request in enumerate(requests):
        request.META["HTTP_X_FORWARDED_FOR"] = f"203.0.113.{i}, 198.51.100.{i}"
    answers = [_throttle(CountingAnonRateThrottle, "60/min").allow_request(request, None) for request in requests]
    assert answers.count(True) == 60 and answers[60:] == [False] * 5


def test_behind_a_configured_proxy_the_throttle_counts_the_forwarded_address(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    first, second = _request(address="10.0.0.21"), _request(address="10.0.0.21")
    first.META["HTTP_X_FORWARDED_FOR"] = "198.51.100.1"
    second.META["HTTP_X_FORWARDED_FOR"] = "198.51.100.2"
    assert _throttle(CountingAnonRateThrottle, "1/min").allow_request(first, None)
    assert _throttle(CountingAnonRateThrottle, "1/min").allow_request(second, None)
    assert not _throttle(CountingAnonRateThrottle, "1/min").allow_request(first, None)
