"""Counting in fixed windows of Django's cache: one counter per key and window, one increment per hit.

Used by the sign-in limits. A window starts with its first hit and lasts its
period; the Redis cache does the increment and the expiry in one atomic round trip.
"""

import contextlib
import time


def window_hit(cache, key: str, seconds: int, *, now: float | None = None) -> tuple[int, float]:
    """Count one more hit; returns the count in the current window and the seconds the window has left."""
    if hasattr(cache, "incr_window"):  # our Redis cache
        count, left = cache.incr_window(key, seconds)
        return count, float(left)
    now = time.time() if now is None else now
    try:
        count = cache.incr(key)  # the memory cache checks expiry and increments under one lock
    except ValueError:  # no window yet (or it has just ended): open one
        if cache.add(key, 1, seconds):
            cache.set(f"{key}:start", now, seconds)
            return 1, float(seconds)
        count = cache.incr(key)  # another request opened it first
    start = cache.get(f"{key}:start")
    return count, float(seconds) if start is None else max(0.0, start + seconds - now)


def window_forget(cache, key: str) -> None:
    cache.delete_many([key, f"{key}:start"])


def window_take_back(cache, key: str) -> None:
    """Undo one hit (a request that turned out not to count)."""
    with contextlib.suppress(ValueError):  # the window has ended meanwhile
        cache.decr(key)  # keeps the key's expiry, on Redis and in memory
