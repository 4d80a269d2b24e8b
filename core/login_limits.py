"""Limits on sign-in attempts, per account and per address, kept in Django's cache.

Every attempt is counted before the password is checked, so a burst of parallel guesses is held to the
limit too; a successful sign-in clears the account's count and gives its attempt back to the address.
Past a limit, sign-ins are refused (without checking the password) until the window ends, and the
message says when that is. The address is `core.network.client_address`: proxy headers count only when
configured. Used by the login page and the admin's login alike.
"""

import hashlib
import math
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from .errors import RateLimitedError
from .windows import window_forget, window_hit, window_take_back


def _account_key(username: str) -> str:
    # Case folded: "Alice" and "alice" share one count whatever the database's collation does.
    digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
    return f"login-attempts_account_{digest}"


def _address_key(address: str) -> str:
    return f"login-attempts_address_{address}"


def _refusal(seconds_left: float) -> RateLimitedError:
    seconds = max(1, math.ceil(seconds_left))
    minutes = math.ceil(seconds / 60)
    at = timezone.localtime(timezone.now() + timedelta(seconds=seconds))
    wait = f"{minutes} minute{'s' if minutes != 1 else ''}"
    return RateLimitedError(
        f"Too many failed sign-in attempts. Try again in {wait} (after {at:%H:%M %Z}).", retry_after=seconds
    )


def login_attempt_start(*, username: str, address: str | None) -> None:
    """Count a sign-in attempt; raises RateLimitedError when the account or the address is over its limit."""
    window = settings.LOGIN_ATTEMPTS_WINDOW_SECONDS
    count, left = window_hit(cache, _account_key(username), window)
    refused_for = left if count > settings.LOGIN_ATTEMPTS_PER_ACCOUNT else 0.0
    if address:
        count, left = window_hit(cache, _address_key(address), window)
        if count > settings.LOGIN_ATTEMPTS_PER_ADDRESS:
            refused_for = max(refused_for, left)
    if refused_for:
        raise _refusal(refused_for)


def login_attempt_succeeded(*, username: str, address: str | None) -> None:
    """A correct password: the account starts afresh, and the address gets its attempt back."""
    window_forget(cache, _account_key(username))
    if address:
        window_take_back(cache, _address_key(address))
