"""Import and sync issues from GitHub: jobs (jobs.py) and the comment / link stores (store.py)."""

from .jobs import (
    github_client_build,
    github_import_continue,
    github_import_start,
    github_repository_get_or_create,
    parse_repository_name,
)
from .store import CommentUpsertResult, comments_upsert, links_upsert, repository_rename

__all__ = [
    "CommentUpsertResult",
    "comments_upsert",
    "github_client_build",
    "github_import_continue",
    "github_import_start",
    "github_repository_get_or_create",
    "links_upsert",
    "parse_repository_name",
    "repository_rename",
]
