"""The Redis cache backend keeps its clients, and still behaves as Django's cache (against a real Redis)."""

import threading

import pytest

from core.cache import ReusedClientRedisCache
from tests.conftest import TEST_REDIS_URL, redis_or_skip


@pytest.fixture
def cache():
    redis_or_skip()
    backend = ReusedClientRedisCache(TEST_REDIS_URL, {"KEY_PREFIX": "taxonomist-cache-test"})
    yield backend
    backend.delete_many(["a", "b", "counter", *(f"t{i}" for i in range(8))])


def test_it_behaves_as_djangos_redis_cache(cache):
    cache.set("a", {"x": [1, 2]}, 30)
    assert cache.get("a") == {"x": [1, 2]}
    assert cache.add("a", "other") is False
    assert cache.get_many(["a", "b"]) == {"a": {"x": [1, 2]}}
    cache.set("counter", 1)
    assert cache.incr("counter", 5) == 6
    cache.delete("a")
    assert cache.get("a", "gone") == "gone"


def test_one_client_serves_every_operation(cache):
    first = cache._cache.get_client(write=True)
    cache.set("a", 1)
    cache.get("a")
    assert cache._cache.get_client(write=True) is first
    assert cache._cache.get_client(write=False) is cache._cache.get_client(write=False)


def test_the_shared_client_is_safe_across_threads(cache):
    errors = []

    def work(i: int) -> None:
        try:
            for n in range(50):
                cache.set(f"t{i}", n)
                assert cache.get(f"t{i}") == n
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_counting_window_always_expires(cache):
    count, left = cache.incr_window("counter", 30)
    assert (count, 0 < left <= 30) == (1, True)
    count, _ = cache.incr_window("counter", 30)
    assert count == 2
    raw = cache._cache.get_client(write=True)
    assert 0 < raw.ttl(cache.make_and_validate_key("counter")) <= 30  # never a counter without an expiry
