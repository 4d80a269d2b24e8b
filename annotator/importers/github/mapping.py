"""GitHub REST JSON -> IssueRecord / CommentRecord / LinkRecord. Pure: no Django, no HTTP."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from annotator.importers.records import CommentRecord, IssueRecord, LinkRecord, RepositoryRef

_LINK_PART = re.compile(r'<([^>]*)>\s*;\s*rel="?([^";]+)"?')
# .../repos/{owner}/{name}/issues/{number}: the tail of every issue_url and issue API url.
_ISSUE_URL = re.compile(r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)/issues/(?P<number>\d+)/?$")
_COMMIT_URL = re.compile(r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)/commits/(?P<sha>[0-9a-fA-F]+)/?$")

# When one URL is reached several ways, the strongest relation wins.
_RELATION_RANK = {"closed_by": 3, "cross_referenced": 2, "referenced": 1}


def parse_link_header(value: str | None) -> dict[str, str]:
    """`<url>; rel="next", <url>; rel="last"` -> {"next": url, "last": url}."""
    if not value:
        return {}
    return {rel: url for url, rel in _LINK_PART.findall(value)}


def parse_datetime(value: str | None) -> datetime | None:
    """GitHub timestamps are ISO 8601 in UTC ("2024-01-02T03:04:05Z")."""
    if not value:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def format_datetime(value: datetime) -> str:
    """The `since` form GitHub documents: second precision, UTC, trailing Z."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_pull_request(data: Mapping[str, Any]) -> bool:
    return bool(data.get("pull_request"))


def issue_number_from_url(url: str | None) -> int | None:
    """The issue number at the end of a comment's `issue_url`, or None if it is not an issue URL."""
    match = _ISSUE_URL.search(urlsplit(url or "").path)
    return int(match["number"]) if match else None


def _login(user: Mapping[str, Any] | None) -> str:
    return (user or {}).get("login") or ""


def _labels(labels: Iterable[Any] | None) -> list[str]:
    names = []
    for label in labels or ():
        name = label.get("name") if isinstance(label, Mapping) else label
        if name:
            names.append(str(name))
    return names


def issue_record_from_json(data: Mapping[str, Any], *, repository: RepositoryRef) -> IssueRecord:
    """One element of the issues listing. Comments and links come from their own listings (None: untouched)."""
    return IssueRecord(
        url=data["html_url"],
        title=data.get("title") or "",
        repository=repository,
        number=int(data["number"]),
        kind="pull" if is_pull_request(data) else "issue",
        body=data.get("body") or "",
        state=data.get("state") or "",
        state_reason=data.get("state_reason") or "",
        author=_login(data.get("user")),
        labels=_labels(data.get("labels")),
        created=parse_datetime(data.get("created_at")),
        updated=parse_datetime(data.get("updated_at")),
        closed=parse_datetime(data.get("closed_at")),
        comment_count=int(data.get("comments") or 0),
        raw=dict(data),
        comments=None,
        links=None,
    )


def comment_record_from_json(data: Mapping[str, Any]) -> tuple[int | None, CommentRecord]:
    """One element of the repository-wide comments listing -> (issue number, record)."""
    record = CommentRecord(
        key=str(data["id"]),
        body=data.get("body") or "",
        author=_login(data.get("user")),
        created=parse_datetime(data.get("created_at")),
        updated=parse_datetime(data.get("updated_at")),
        url=data.get("html_url") or "",
        raw=dict(data),
    )
    return issue_number_from_url(data.get("issue_url")), record


def _commit_html_url(event: Mapping[str, Any], *, html_base: str, repository: RepositoryRef) -> str:
    """A commit's web page; the commit may live in another repository (commit_url says which)."""
    sha = event["commit_id"]
    match = _COMMIT_URL.search(urlsplit(event.get("commit_url") or "").path)
    full_name = f"{match['owner']}/{match['name']}" if match else repository.full_name
    return f"{html_base}/{full_name}/commit/{sha}"


def links_from_timeline(
    events: Iterable[Mapping[str, Any]], *, repository: RepositoryRef, html_base: str | None = None
) -> list[LinkRecord]:
    """Pull requests and commits that fixed or mention an issue, from its timeline events.

    cross-referenced events whose source is a pull request; closed and referenced events that
    carry a commit. Each URL once, with its strongest relation.
    """
    html_base = (html_base or f"https://{repository.host}").rstrip("/")
    by_url: dict[str, LinkRecord] = {}
    for event in events:
        kind = event.get("event")
        link: LinkRecord | None = None
        if kind == "cross-referenced":
            source = (event.get("source") or {}).get("issue") or {}
            pull = source.get("pull_request")
            if pull and source.get("html_url"):
                link = LinkRecord(
                    kind="pull",
                    relation="cross_referenced",
                    url=source["html_url"],
                    number=source.get("number"),
                    title=(source.get("title") or "")[:1000],
                    merged=bool(pull.get("merged_at")) if "merged_at" in pull else None,
                )
        elif kind in {"closed", "referenced"} and event.get("commit_id"):
            link = LinkRecord(
                kind="commit",
                relation="closed_by" if kind == "closed" else "referenced",
                url=_commit_html_url(event, html_base=html_base, repository=repository),
                sha=event["commit_id"],
            )
        if link is None:
            continue
        known = by_url.get(link.url)
        if known is None or _RELATION_RANK[link.relation] > _RELATION_RANK[known.relation]:
            by_url[link.url] = link
    return list(by_url.values())
