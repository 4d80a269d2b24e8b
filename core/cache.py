"""The shared Redis cache: django-redis, plus one operation of our own, an atomic counting window.

django-redis keeps one Redis client per server for the life of the process; Django's own Redis backend
builds a new client for every operation, and sessions and API throttling make three of them on every
request. The sign-in limits need the window: a counter that starts a window must get its expiry in the same
step, or a failure in between would leave a counter without one and lock an account out for good, and the
cache API has no "increment, creating with an expiry" (`incr()` refuses a missing key). Here the increment and
the expiry go to Redis in one transaction, through django-redis's public client.
"""

from django_redis.cache import RedisCache as DjangoRedisCache


class RedisCache(DjangoRedisCache):
    """settings.CACHES backend: django_redis.cache.RedisCache, plus `incr_window`."""

    def incr_window(self, key: str, timeout: int) -> tuple[int, int]:
        """Count one more in a window of `timeout` seconds that starts with its first count; returns the count
        and the seconds left in the window. One round trip, atomic."""
        key = self.make_and_validate_key(key)
        pipeline = self.client.get_client(write=True).pipeline(transaction=True)
        pipeline.incr(key)
        pipeline.expire(key, timeout, nx=True)
        pipeline.ttl(key)
        count, _, left = pipeline.execute()
        return count, max(left, 0)
