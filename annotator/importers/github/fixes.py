"""GitHub's pull request, commit and changed-file JSON -> FixRecord / FixFileRecord, refusing hostile values.

Pure: no Django, no HTTP. Every field comes from outside, so each is checked before anything is
written: numbers are whole, not negative and fit the database's columns, times parse, texts fit
their columns and hold no NUL or other control characters, a file's status is one GitHub documents,
and no path is listed twice. A change that fails any check is refused whole (FixDataError says why).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from .mapping import parse_datetime

MAX_COUNT = 2**31 - 1  # PositiveIntegerField's range on PostgreSQL
MAX_PATH_LENGTH = 1000
MAX_ETAG_LENGTH = 200
# GitHub lists at most 3,000 files of a pull request (or of a commit); more means a hostile server.
MAX_FILES = 3000
FILE_STATUSES = ("added", "removed", "modified", "renamed", "copied", "changed", "unchanged")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
_SHA = re.compile(r"^[0-9a-fA-F]{7,64}$")
# https://{host}/{owner}/{name}/pull/{number} or .../commit/{sha}: the web address an IssueLink keeps.
_CHANGE_PATH = re.compile(r"^/(?P<owner>[^/]+)/(?P<name>[^/]+)/(?:pull/(?P<number>\d{1,10})|commit/(?P<sha>[^/]+))/?$")


class FixDataError(ValueError):
    """A value GitHub (or something posing as it) sent that cannot be stored; the message names it."""


@dataclass(frozen=True, slots=True)
class ChangeRef:
    """Where a linked change lives: its repository and its pull request number or commit sha."""

    owner: str
    name: str
    number: int | None = None
    sha: str = ""

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def api_path(self) -> str:
        if self.number is not None:
            return f"/repos/{self.full_name}/pulls/{self.number}"
        return f"/repos/{self.full_name}/commits/{self.sha}"


@dataclass(slots=True)
class FixFileRecord:
    path: str
    previous_path: str = ""
    status: str = "modified"
    additions: int = 0
    deletions: int = 0


@dataclass(slots=True)
class FixRecord:
    merged: bool | None = None
    opened_at: datetime | None = None
    merged_at: datetime | None = None
    committed_at: datetime | None = None
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    commits: int | None = None
    comments: int | None = None
    review_comments: int | None = None
    files: list[FixFileRecord] = field(default_factory=list)


def change_ref_from_url(url: str, *, host: str) -> ChangeRef | None:
    """The pull request or commit an IssueLink's address names on `host`; None for anything else.

    The owner, name and sha become parts of request paths, so only GitHub's own characters pass.
    """
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or (parts.hostname or "").lower() != host.lower():
        return None
    match = _CHANGE_PATH.match(parts.path)
    if not match or not (_NAME.match(match["owner"]) and _NAME.match(match["name"])):
        return None
    if match["owner"] in (".", "..") or match["name"] in (".", ".."):
        return None
    if match["number"] is not None:
        number = int(match["number"])
        return ChangeRef(match["owner"], match["name"], number=number) if 0 < number <= MAX_COUNT else None
    return ChangeRef(match["owner"], match["name"], sha=match["sha"]) if _SHA.match(match["sha"]) else None


def _count(data: Mapping[str, Any], key: str, *, optional: bool = False) -> int | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise FixDataError(f"{key} is not a whole number ({type(value).__name__}).")
    if not 0 <= value <= MAX_COUNT:
        raise FixDataError(f"{key} is out of range ({value}).")
    return value


def _time(data: Mapping[str, Any], key: str) -> datetime | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 40 or _CONTROL.search(value):
        raise FixDataError(f"{key} is not a time.")
    try:
        return parse_datetime(value)
    except ValueError:
        raise FixDataError(f"{key} is not a time ({value[:40]!r}).") from None


def _text(value: Any, key: str, *, max_length: int, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise FixDataError(f"{key} is not a text.")
    if required and not value:
        raise FixDataError(f"{key} is empty.")
    if len(value) > max_length:
        raise FixDataError(f"{key} is longer than {max_length} characters.")
    if _CONTROL.search(value):
        raise FixDataError(f"{key} holds a NUL or another control character.")
    return value


def etag_clean(value: Any) -> str:
    """An ETag to send back later: a short printable header value, else none at all."""
    if not isinstance(value, str) or len(value) > MAX_ETAG_LENGTH or not value.isprintable():
        return ""
    return value


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise FixDataError(f"{what} is not an object.")
    return value


def fix_files_from_json(items: Iterable[Any]) -> list[FixFileRecord]:
    """The changed files of a pull request or commit, in GitHub's order; each path once."""
    files: list[FixFileRecord] = []
    seen: set[str] = set()
    for item in items:
        if len(files) >= MAX_FILES:
            raise FixDataError(f"More than {MAX_FILES} changed files were listed.")
        item = _mapping(item, "A changed file")
        path = _text(item.get("filename"), "filename", max_length=MAX_PATH_LENGTH, required=True)
        if path in seen:
            raise FixDataError(f"The file {path[:100]!r} is listed twice.")
        seen.add(path)
        status = item.get("status", "modified")
        if status not in FILE_STATUSES:
            raise FixDataError(f"status of {path[:100]!r} is not one GitHub lists ({str(status)[:20]!r}).")
        files.append(
            FixFileRecord(
                path=path,
                previous_path=_text(item.get("previous_filename"), "previous_filename", max_length=MAX_PATH_LENGTH),
                status=status,
                additions=_count(item, "additions"),
                deletions=_count(item, "deletions"),
            )
        )
    return files


def fix_from_pull_json(data: Any, files: Iterable[Any]) -> FixRecord:
    """`GET /repos/{o}/{r}/pulls/{n}` and its files listing.

    The totals are the pull request's own: GitHub reports 0 lines for files past a response's diff
    limit, so the files' sum can fall short of them.
    """
    data = _mapping(data, "The pull request")
    merged = data.get("merged")
    if merged is not None and not isinstance(merged, bool):
        raise FixDataError("merged is neither true nor false.")
    merged_at = _time(data, "merged_at")
    return FixRecord(
        merged=merged if merged is not None else (merged_at is not None),
        opened_at=_time(data, "created_at"),
        merged_at=merged_at,
        additions=_count(data, "additions"),
        deletions=_count(data, "deletions"),
        changed_files=_count(data, "changed_files"),
        commits=_count(data, "commits", optional=True),
        comments=_count(data, "comments", optional=True),
        review_comments=_count(data, "review_comments", optional=True),
        files=fix_files_from_json(files),
    )


def fix_from_commit_json(data: Any, files: Iterable[Any]) -> FixRecord:
    """`GET /repos/{o}/{r}/commits/{sha}`: its stats, and the files of all its pages.

    The lines come from the commit's stats, which count every file; GitHub lists at most 3,000 of a commit's files
    and says nowhere how many it changed, so ``changed_files`` is the listed count, a lower bound when the listing
    was cut (the fetch records that as ``files_complete`` false).
    """
    data = _mapping(data, "The commit")
    stats = _mapping(data.get("stats") or {}, "stats")
    commit = _mapping(data.get("commit") or {}, "commit")
    committer = _mapping(commit.get("committer") or {}, "commit.committer")
    record = FixRecord(
        committed_at=_time(committer, "date"),
        additions=_count(stats, "additions"),
        deletions=_count(stats, "deletions"),
        commits=1,
        comments=_count(commit, "comment_count", optional=True),
        files=fix_files_from_json(files),
    )
    record.changed_files = len(record.files)
    return record
