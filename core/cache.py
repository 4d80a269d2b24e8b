"""Django's Redis cache, keeping one client per connection pool.

Django's RedisCacheClient builds a new `redis.Redis` object for every cache operation, and building one
fills a table of about eighty response callbacks: on a 2-core machine that costs more than the command's
own round trip. Every request touches the cache (the session, the API throttle), so the client is kept
and reused here. A `redis.Redis` client is safe to share between threads: it takes a connection from its
pool for each command.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class _ReusedClientCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[bool, object] = {}

    def get_client(self, key=None, *, write=False):
        client = self._clients.get(write)
        if client is None:
            client = self._clients[write] = super().get_client(key, write=write)
        return client


class ReusedClientRedisCache(RedisCache):
    """settings.CACHES backend: django.core.cache.backends.redis.RedisCache, with its clients reused."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _ReusedClientCacheClient

    def incr_window(self, key: str, timeout: int) -> tuple[int, int]:
        """Count one more in a window of `timeout` seconds that starts with its first count; returns the count
        and the seconds left in the window. One round trip, atomic: Django's incr() checks that the key exists
        and then increments it, and a key expiring in between would come back without an expiry."""
        key = self.make_and_validate_key(key)
        pipeline = self._cache.get_client(key, write=True).pipeline(transaction=True)
        pipeline.incr(key)
        pipeline.expire(key, timeout, nx=True)
        pipeline.ttl(key)
        count, _, left = pipeline.execute()
        return count, max(left, 0)
