"""API throttles that count requests instead of keeping a list of their times.

DRF's rate throttles keep, per client, the list of its request times within the window, and read,
trim and write that whole list back on every request: with the user rate at thousands per minute, a
busy client's list holds thousands of floats, pickled both ways on each call. These throttles keep
one counter per client and window instead (one cache increment per request). The window starts with
the client's first request and lasts the rate's period, so a client gets at most the rate within a
window (and, at a window's end, at most twice the rate in any one period: the usual price of counting).
Clients are told apart by `core.network.client_address`, which trusts proxy headers only when configured.
"""

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from .network import client_address
from .windows import window_hit


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
        count, self._left = window_hit(self.cache, self.key, self.duration, now=self.now)
        return count

    def get_ident(self, request) -> str:
        return client_address(request)

    def wait(self) -> float | None:
        return self._left


class CountingAnonRateThrottle(_CountingThrottle, AnonRateThrottle):
    """AnonRateThrottle (rate "anon", keyed by client address), counting."""


class CountingUserRateThrottle(_CountingThrottle, UserRateThrottle):
    """UserRateThrottle (rate "user", keyed by user, else by client address), counting."""
