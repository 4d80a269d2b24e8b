"""Which failures mean that a part a request needs is busy or cannot be reached, and what to tell the user.

Such a request is answered 503 with Retry-After ("try again in a moment"), on the API with its error body and
on a page with the 503 page, instead of the 500 of a bug. The parts: the database (busy past its timeout, e.g.
the SQLite writer queue, or unreachable) and the shared Redis cache, which holds the sessions and the API
throttles, so every request needs it when it is configured.
"""

import sys

from django.db import OperationalError

DATABASE = "database"
CACHE = "cache"
RETRY_AFTER_SECONDS = 5

MESSAGES = {
    # The request's transaction rolled back: it changed nothing, and the same request may well work in a moment.
    DATABASE: (
        "The database is busy or cannot be reached, so nothing was saved by this request. Try again in a moment."
    ),
    # The cache is read before any view runs (the session, the throttles), so such a request was not carried out.
    CACHE: (
        "The service's cache (Redis) cannot be reached, so this request could not be completed. Try again in a "
        "moment; if it keeps happening, tell the site's administrator."
    ),
}


def unavailable_part(exc: BaseException | None) -> str | None:
    """DATABASE or CACHE when `exc` says that part is busy or unreachable; None for any other error."""
    if isinstance(exc, OperationalError):
        return DATABASE
    # Only a process that uses Redis has imported redis, and only then can its errors occur.
    redis_errors = sys.modules.get("redis.exceptions")
    if redis_errors is not None and isinstance(exc, redis_errors.ConnectionError | redis_errors.TimeoutError):
        return CACHE
    return None
