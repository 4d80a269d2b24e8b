"""Fix details: fetch a linked pull request or commit with its changed files, and store what measures it.

Fetching goes through the GitHub client (rate limits, retries); the change's own resource is asked
for with the ETag stored last time, so an unchanged fix costs one request answered 304 (which
GitHub does not count against the rate limit) and no file pages. Storing validates every field
(annotator.importers.github.fixes) before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotator.importers.github import GitHubClient
from annotator.importers.github.fixes import (
    MAX_FILES,
    ChangeRef,
    FixDataError,
    etag_clean,
    fix_from_commit_json,
    fix_from_pull_json,
)
from annotator.models import FixDetail, FixFile, IssueLink

PULL_FILES_PER_PAGE = 100  # the most GitHub sends a page
COMMIT_FILES_PER_PAGE = 300  # GitHub's fixed page of a commit's files
# GitHub stops listing at 3,000 files; a server that links on past that is not followed.
MAX_PULL_FILE_PAGES = MAX_FILES // PULL_FILES_PER_PAGE
MAX_COMMIT_PAGES = MAX_FILES // COMMIT_FILES_PER_PAGE


@dataclass
class FetchedChange:
    """What GitHub answered for one linked change; `not_modified` when the stored ETag still holds."""

    not_modified: bool = False
    change: Any = None
    files: list[Any] = field(default_factory=list)
    etag: str = ""
    files_complete: bool = False


def _own_next(client: GitHubClient, url: str | None) -> str | None:
    """A next page only on the server asked: a Link header never sends the token elsewhere."""
    return url if url and url.startswith(client.base_url + "/") else None


def fix_change_fetch(*, client: GitHubClient, ref: ChangeRef, etag: str = "") -> FetchedChange:
    """The change's resource (conditionally) and, when it changed, every page of its files."""
    first = client.get_page(client.url(ref.api_path), etag=etag)
    if first.not_modified:
        return FetchedChange(not_modified=True, etag=etag)
    fetched = FetchedChange(change=first.data, etag=etag_clean(first.etag))
    if ref.number is not None:
        url = client.url(f"{ref.api_path}/files", per_page=PULL_FILES_PER_PAGE)
        pages_left = MAX_PULL_FILE_PAGES
    else:  # a commit's first page already holds its first files
        fetched.files.extend(_list(first.data.get("files") if isinstance(first.data, dict) else None))
        url, pages_left = _own_next(client, first.next_url), MAX_COMMIT_PAGES - 1
    while url and pages_left > 0:
        page = client.get_page(url)
        pages_left -= 1
        data = page.data
        fetched.files.extend(_list(data if ref.number is not None else (data or {}).get("files")))
        if len(fetched.files) > MAX_FILES:
            raise FixDataError(f"More than {MAX_FILES} changed files were listed.")
        url = _own_next(client, page.next_url)
    listed_all = url is None and len(fetched.files) < MAX_FILES
    if ref.number is not None and isinstance(fetched.change, dict):
        # The pull request says how many files it changed; GitHub lists no more than 3,000 of them.
        listed_all = url is None and fetched.change.get("changed_files") == len(fetched.files)
    fetched.files_complete = listed_all
    return fetched


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FixDataError("A files listing is not a list.")
    return value


@transaction.atomic
def fix_detail_store(*, link: IssueLink, fetched: FetchedChange) -> FixDetail:
    """Validate what GitHub sent for the link's change and write it with its files (replacing the old ones).

    Raises FixDataError, writing nothing, when any value cannot be stored.
    """
    parse = fix_from_pull_json if link.kind == IssueLink.Kind.PULL else fix_from_commit_json
    record = parse(fetched.change, fetched.files)
    values = {
        "merged": record.merged,
        "opened_at": record.opened_at,
        "merged_at": record.merged_at,
        "committed_at": record.committed_at,
        "additions": record.additions,
        "deletions": record.deletions,
        "changed_files": record.changed_files,
        "commits": record.commits,
        "comments": record.comments,
        "review_comments": record.review_comments,
        "files_complete": fetched.files_complete,
        "etag": etag_clean(fetched.etag),
        "fetched_at": timezone.now(),
    }
    detail, created = FixDetail.objects.select_for_update().get_or_create(link=link, defaults=values)
    if not created:
        for name, value in values.items():
            setattr(detail, name, value)
        detail.save()
        detail.files.all().delete()
    FixFile.objects.bulk_create(
        [
            FixFile(
                detail=detail,
                path=f.path,
                previous_path=f.previous_path,
                status=f.status,
                additions=f.additions,
                deletions=f.deletions,
            )
            for f in record.files
        ],
        batch_size=1000,
    )
    return detail


def fix_detail_unchanged(*, detail: FixDetail) -> None:
    """GitHub answered 304 for the stored ETag: the details stand, read again just now."""
    FixDetail.objects.filter(pk=detail.pk).update(fetched_at=timezone.now(), updated_at=timezone.now())
