"""Django's Redis cache with one more operation: an atomic counting window (the sign-in limits use it).

Django's `incr()` checks that the key exists and then increments it; a key expiring in between comes back
as a new counter without an expiry, which for a sign-in limit would lock an account out for good. Here the
increment and the expiry go to Redis in one transaction, on a client of our own (redis-py's public API),
so nothing of Django's backend internals is touched.
"""

import re
from functools import cached_property

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache


class RedisCache(DjangoRedisCache):
    """settings.CACHES backend: django.core.cache.backends.redis.RedisCache, plus `incr_window`."""

    def __init__(self, server, params):
        super().__init__(server, params)
        servers = server if isinstance(server, list | tuple) else re.split("[;,]", server)
        self._primary_url = servers[0].strip()  # Django writes to the first server too

    @cached_property
    def _window_client(self) -> redis.Redis:
        return redis.Redis.from_url(self._primary_url)

    def incr_window(self, key: str, timeout: int) -> tuple[int, int]:
        """Count one more in a window of `timeout` seconds that starts with its first count; returns the count
        and the seconds left in the window. One round trip, atomic."""
        key = self.make_and_validate_key(key)
        pipeline = self._window_client.pipeline(transaction=True)
        pipeline.incr(key)
        pipeline.expire(key, timeout, nx=True)
        pipeline.ttl(key)
        count, _, left = pipeline.execute()
        return count, max(left, 0)
