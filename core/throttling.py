"""API throttles that count requests instead of keeping a list of their times.

DRF's rate throttles keep, per client, the list of its request times within the window, and read,
trim and write that whole list back on every request: with the user rate at thousands per minute, a
busy client's list holds thousands of floats, pickled both ways on each call. These throttles keep
one counter per client and window instead (one cache increment per request). The window starts with
the client's first request and lasts the rate's period, so a client gets at most the rate within a
window (and, at a window's end, at most twice the rate in any one period: the usual price of counting).
"""

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class _CountingThrottle:
    # Not DRF's key: its throttles keep lists under theirs, which a counter must never meet (e.g. during an upgrade).
    cache_format = "throttle-count_%(scope)s_%(ident)s"

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        count = self._count()
        if count > self.num_requests:
            return self.throttle_failure()
        return True

    def _count(self) -> int:
        if hasattr(self.cache, "incr_window"):  # our Redis cache: one atomic round trip
            count, self._left = self.cache.incr_window(self.key, self.duration)
            return count
        self._left = None
        try:
            return self.cache.incr(self.key)  # the memory cache checks expiry and increments under one lock
        except ValueError:  # no window yet (or it has just ended): open one
            if self.cache.add(self.key, 1, self.duration):
                self.cache.set(f"{self.key}:start", self.now, self.duration)
                return 1
            return self.cache.incr(self.key)  # another request opened it first

    def wait(self) -> float | None:
        if self._left is not None:
            return float(self._left)
        start = self.cache.get(f"{self.key}:start")
        if start is None:
            return self.duration
        return max(0.0, start + self.duration - self.now)


class CountingAnonRateThrottle(_CountingThrottle, AnonRateThrottle):
    """AnonRateThrottle (rate "anon", keyed by client address), counting."""


class CountingUserRateThrottle(_CountingThrottle, UserRateThrottle):
    """UserRateThrottle (rate "user", keyed by user, else by client address), counting."""
