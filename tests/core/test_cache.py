"""The Redis cache backend behaves as Django's, and its counting window is atomic (against a real Redis)."""

import pytest

from core.cache import RedisCache
from tests.redis_server import TEST_REDIS_URL, redis_or_skip

pytestmark = pytest.mark.redis


@pytest.fixture
def cache():
    redis_or_skip()
    backend = RedisCache(TEST_REDIS_URL, {"KEY_PREFIX": "taxonomist-cache-test"})
    yield backend
    backend.delete_many(["a", "b", "counter"])


def test_it_behaves_as_djangos_redis_cache(cache):
    cache.set("a", {"x": [1, 2]}, 30)
    assert cache.get("a") == {"x": [1, 2]}
    assert cache.add("a", "other") is False
    assert cache.get_many(["a", "b"]) == {"a": {"x": [1, 2]}}
    cache.set("counter", 1)
    assert cache.incr("counter", 5) == 6
    cache.delete("a")
    assert cache.get("a", "gone") == "gone"


def test_a_counting_window_always_expires(cache):
    import redis

    count, left = cache.incr_window("counter", 30)
    assert (count, 0 < left <= 30) == (1, True)
    count, _ = cache.incr_window("counter", 30)
    assert count == 2
    raw = redis.Redis.from_url(TEST_REDIS_URL)
    assert 0 < raw.ttl(cache.make_and_validate_key("counter")) <= 30  # never a counter without an expiry


def test_the_window_counts_in_the_cache_it_belongs_to(cache):
    cache.incr_window("counter", 30)
    assert cache.incr("counter") == 2  # the same key Django's own operations see
