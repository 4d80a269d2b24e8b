"""Import issues from the GitHub REST API: a client (client.py) and pure JSON mapping (mapping.py)."""

from .client import (
    GitHubClient,
    GitHubError,
    GitHubHTTPError,
    Page,
    RateLimitedError,
    TransientGitHubError,
)
from .mapping import (
    comment_record_from_json,
    format_datetime,
    is_pull_request,
    issue_number_from_url,
    issue_record_from_json,
    links_from_timeline,
    parse_datetime,
    parse_link_header,
)

__all__ = [
    "GitHubClient",
    "GitHubError",
    "GitHubHTTPError",
    "Page",
    "RateLimitedError",
    "TransientGitHubError",
    "comment_record_from_json",
    "format_datetime",
    "is_pull_request",
    "issue_number_from_url",
    "issue_record_from_json",
    "links_from_timeline",
    "parse_datetime",
    "parse_link_header",
]
