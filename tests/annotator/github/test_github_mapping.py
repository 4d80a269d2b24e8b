"""GitHub JSON -> records: pure functions, no database, no network."""

from datetime import UTC, datetime

from annotator.importers.github import (
    comment_record_from_json,
    issue_number_from_url,
    issue_record_from_json,
    links_from_timeline,
    parse_link_header,
)
from annotator.importers.records import RepositoryRef

REF = RepositoryRef(owner="deepspeedai", name="DeepSpeed")
ISSUE = {
    "id": 1,
    "node_id": "I_1",
    "number": 42,
    "title": "ZeRO-3 hangs",
    "body": None,
    "user": {"login": "alice", "id": 3},
    "labels": [{"name": "bug", "color": "d73a4a"}, {"name": "zero", "color": "fff"}],
    "state": "closed",
    "state_reason": "completed",
    "comments": 3,
    "created_at": "2024-01-02T03:04:05Z",
    "updated_at": "2024-01-03T03:04:05Z",
    "closed_at": "2024-01-04T03:04:05Z",
    "html_url": "https://github.com/deepspeedai/DeepSpeed/issues/42",
    "url": "https://api.github.com/repos/deepspeedai/DeepSpeed/issues/42",
    "author_association": "NONE",
}


def test_an_issue_maps_every_field():
    record = issue_record_from_json(ISSUE, repository=REF)

    assert (record.number, record.kind, record.title, record.body) == (42, "issue", "ZeRO-3 hangs", "")
    assert (record.state, record.state_reason, record.author) == ("closed", "completed", "alice")
    assert record.labels == ["bug", "zero"]
    assert record.created == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert record.closed == datetime(2024, 1, 4, 3, 4, 5, tzinfo=UTC)
    assert record.comment_count == 3
    assert record.comments is None and record.links is None  # their own listings fill them
    assert record.raw["node_id"] == "I_1"


def test_a_pull_request_is_recognised_by_its_key():
    pull = {**ISSUE, "pull_request": {"url": "u", "html_url": "h"}}

    assert issue_record_from_json(pull, repository=REF).kind == "pull"


def test_a_comment_knows_its_issue_number():
    number, record = comment_record_from_json(
        {
            "id": 7,
            "html_url": "https://github.com/deepspeedai/DeepSpeed/issues/42#issuecomment-7",
            "issue_url": "https://ghe.example.org/api/v3/repos/deepspeedai/DeepSpeed/issues/42",
            "user": None,
            "body": "same here",
            "created_at": "2024-01-02T03:04:05Z",
            "updated_at": "2024-01-02T03:04:05Z",
        }
    )

    assert (number, record.key, record.author, record.body) == (42, "7", "", "same here")


def test_issue_number_from_url_rejects_other_urls():
    assert issue_number_from_url("https://api.github.com/repos/a/b/pulls/3") is None
    assert issue_number_from_url(None) is None


def test_link_header_parsing():
    header = '<https://x/issues?page=2>; rel="next", <https://x/issues?page=9>; rel="last"'

    assert parse_link_header(header) == {"next": "https://x/issues?page=2", "last": "https://x/issues?page=9"}
    assert parse_link_header("") == {}


def test_timeline_events_become_fix_links_each_url_once_strongest_relation():
    events = [
        {"event": "commented", "body": "x"},
        {"event": "referenced", "commit_id": "abc", "commit_url": "https://api.github.com/repos/a/b/commits/abc"},
        {"event": "closed", "commit_id": "abc", "commit_url": "https://api.github.com/repos/a/b/commits/abc"},
        {"event": "closed", "commit_id": None},
        {
            "event": "cross-referenced",
            "source": {
                "issue": {
                    "number": 9,
                    "title": "Fix",
                    "html_url": "https://github.com/a/b/pull/9",
                    "pull_request": {"merged_at": None},
                }
            },
        },
        {
            "event": "cross-referenced",
            "source": {"issue": {"number": 10, "html_url": "https://github.com/a/b/issues/10"}},
        },
    ]

    links = links_from_timeline(events, repository=REF)

    assert [(lk.kind, lk.relation, lk.url, lk.number, lk.sha, lk.merged) for lk in links] == [
        ("commit", "closed_by", "https://github.com/a/b/commit/abc", None, "abc", None),
        ("pull", "cross_referenced", "https://github.com/a/b/pull/9", 9, "", False),
    ]
