"""The Redis server of the tests that need a real one (cache backend, Celery broker); CI sets REQUIRE_REDIS.

Such tests are marked `redis`: they share the database TEST_REDIS_URL names, and some empty it.
"""

import os

import pytest

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def redis_or_skip(url: str = TEST_REDIS_URL) -> None:
    """Skip the test when Redis is not reachable, or fail it when REQUIRE_REDIS=1."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        message = f"Redis is not reachable at {url} ({exc}); start redis-server or set TEST_REDIS_URL"
        if os.environ.get("REQUIRE_REDIS") == "1":
            pytest.fail(message)
        pytest.skip(message)
