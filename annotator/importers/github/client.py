"""A small GitHub REST client: pagination, conditional requests, rate limits and retries.

No Django here: the sync service passes the base URL, token, and (in tests) a fake clock.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import requests

from core.numbers import ascii_int

from .mapping import parse_link_header

ACCEPT = "application/vnd.github+json"
API_VERSION = "2022-11-28"
USER_AGENT = "Taxonomist-issue-importer"
PER_PAGE = 100

# What a person can do about each refusal; GitHub's own message is appended.
_HINTS = {
    401: "check GITHUB_TOKEN (it may be wrong or expired)",
    403: "check that GITHUB_TOKEN may read this repository",
    404: "check the repository name and GITHUB_TOKEN",
    410: "issues are disabled or were removed for this repository",
    422: "check the import options (for example the since date)",
}


class GitHubError(Exception):
    """GitHub could not give us what we asked for; the message says what to do."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class GitHubHTTPError(GitHubError):
    """A 4xx answer that is not a rate limit: retrying will not help."""

    def __init__(self, message: str, *, status: int, path: str):
        super().__init__(message)
        self.status = status
        self.path = path


class TransientGitHubError(GitHubError):
    """5xx answers or connection errors that outlasted our retries; a later run may succeed."""


class RateLimitedError(GitHubError):
    """The rate limit is used up and the caller asked not to wait this long inline."""

    def __init__(self, message: str, *, reset_at: float):
        super().__init__(message)
        self.reset_at = reset_at  # epoch seconds


@dataclass
class Page:
    url: str  # as requested
    status: int
    data: Any = None  # parsed JSON; None for 304
    final_url: str = ""  # after redirects (a renamed repository answers 301)
    redirected: bool = False
    links: dict[str, str] = field(default_factory=dict)
    etag: str = ""
    last_modified: str = ""

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def next_url(self) -> str | None:
        return self.links.get("next")


class GitHubClient:
    def __init__(
        self,
        *,
        base_url: str,
        token: str = "",
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_retries: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        max_rate_limit_wait: float | None = None,
        timeout: tuple[float, float] = (10.0, 60.0),
        rng: random.Random | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.session = session or requests.Session()
        self.session.headers.update({"Accept": ACCEPT, "X-GitHub-Api-Version": API_VERSION, "User-Agent": USER_AGENT})
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.sleep = sleep
        self.clock = clock
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        # None: wait out any rate limit inline (command line); a number: longer waits raise RateLimitedError.
        self.max_rate_limit_wait = max_rate_limit_wait
        self.timeout = timeout
        self.rng = rng or random.Random()
        self.requests_made = 0
        self.not_modified = 0
        self.retries = 0
        self.rate_limit_waits = 0
        self.rate_remaining: int | None = None
        self.rate_reset: int | None = None

    def url(self, path: str, **params: Any) -> str:
        query = urlencode({key: value for key, value in params.items() if value is not None})
        return f"{self.base_url}{path}" + (f"?{query}" if query else "")

    def get_page(self, url: str, *, etag: str = "", last_modified: str = "") -> Page:
        """GET one page, waiting out rate limits and retrying transient failures."""
        url = url if urlsplit(url).scheme else urljoin(self.base_url + "/", url.lstrip("/"))
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        failures = 0
        while True:
            try:
                response = self.session.get(url, headers=headers, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as exc:
                failures += 1
                self._retry_or_raise(failures, f"could not reach {self.base_url} ({type(exc).__name__})", url)
                continue
            self.requests_made += 1 + len(response.history)
            self._note_rate_limit(response)
            if response.status_code in (403, 429) and self._is_rate_limited(response):
                self._wait_for_rate_limit(response, url)
                continue
            if response.status_code >= 500:
                failures += 1
                self._retry_or_raise(failures, f"answered {response.status_code} {response.reason}", url)
                continue
            return self._page(url, response)

    def get_json(self, path: str) -> Any:
        return self.get_page(self.url(path)).data

    # -- internals -------------------------------------------------------------------------

    def _page(self, url: str, response: requests.Response) -> Page:
        status = response.status_code
        page = Page(
            url=url,
            status=status,
            final_url=response.url,
            redirected=any(r.status_code in (301, 308) for r in response.history),
            links=parse_link_header(response.headers.get("Link")),
            etag=response.headers.get("ETag", ""),
            last_modified=response.headers.get("Last-Modified", ""),
        )
        if status == 304:
            self.not_modified += 1
            return page
        if status >= 400:
            path = urlsplit(url).path
            hint = _HINTS.get(status, "check the repository name, the options and GITHUB_TOKEN")
            said = _github_message(response)
            message = f"GitHub answered {status} {response.reason} for {path}: {hint}" + (
                f" (GitHub said: {said})" if said else ""
            )
            raise GitHubHTTPError(message, status=status, path=path)
        page.data = response.json() if response.content else None
        return page

    def _note_rate_limit(self, response: requests.Response) -> None:
        remaining = ascii_int(response.headers.get("X-RateLimit-Remaining"))
        reset = ascii_int(response.headers.get("X-RateLimit-Reset"))
        if remaining is not None:
            self.rate_remaining = remaining
        if reset is not None:
            self.rate_reset = reset

    @staticmethod
    def _is_rate_limited(response: requests.Response) -> bool:
        if response.status_code == 429 or response.headers.get("Retry-After"):
            return True
        if response.headers.get("X-RateLimit-Remaining") == "0":
            return True
        return "rate limit" in _github_message(response).lower()

    def _rate_limit_wait_seconds(self, response: requests.Response) -> float:
        retry_after = response.headers.get("Retry-After", "")
        seconds = ascii_int(retry_after)
        if seconds is not None:
            return float(seconds)
        if retry_after:
            try:
                return max(0.0, parsedate_to_datetime(retry_after).timestamp() - self.clock())
            except (TypeError, ValueError):
                pass
        reset = ascii_int(response.headers.get("X-RateLimit-Reset"))
        if response.headers.get("X-RateLimit-Remaining") == "0" and reset is not None:
            return max(0.0, reset - self.clock()) + 1.0  # reset is whole seconds: one more to be past it
        return 60.0  # a secondary limit without headers: GitHub asks for at least a minute

    def _wait_for_rate_limit(self, response: requests.Response, url: str) -> None:
        wait = self._rate_limit_wait_seconds(response)
        if self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
            raise RateLimitedError(
                f"GitHub's rate limit is used up for {urlsplit(url).path}; it resets in {wait:.0f} s",
                reset_at=self.clock() + wait,
            )
        self.rate_limit_waits += 1
        self.sleep(wait)

    def _retry_or_raise(self, failures: int, what: str, url: str) -> None:
        if failures > self.max_retries:
            raise TransientGitHubError(
                f"GitHub {what} for {urlsplit(url).path} {failures} times in a row; try again later"
            )
        self.retries += 1
        cap = min(self.backoff_max, self.backoff_base * 2 ** (failures - 1))
        self.sleep(cap / 2 + self.rng.uniform(0, cap / 2))  # exponential backoff with jitter


def _github_message(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("message", "")) if isinstance(body, dict) else ""
