"""issues_upsert: natural keys, idempotence, updates in place, comments, links, aliases and query cost."""

import copy
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.importers.files import parse_issue_file
from annotator.importers.records import CommentRecord, IssueRecord, LinkRecord, RepositoryRef
from annotator.models import Comment, Issue, IssueLink, Repository
from annotator.services.issues import issues_upsert
from tests.annotator.importers.file_records import gh_issue, rest_issue

pytestmark = pytest.mark.django_db


def records_of(raw_records, **kwargs):
    result = parse_issue_file(json.dumps(raw_records).encode(), name="issues.json", **kwargs)
    assert result.problems == []
    return result.records


def snapshot():
    issues = list(Issue.objects.order_by("id").values_list("id", "url", "title", "updated_at", "content_hash"))
    comments = list(Comment.objects.order_by("id").values_list("id", "issue_id", "key", "body"))
    return issues, comments


def test_a_first_import_creates_issues_and_their_comments():
    result = issues_upsert(records=records_of([rest_issue(n, comments=3) for n in range(1, 6)]))
    assert (result.created, result.updated, result.unchanged) == (5, 0, 0)
    assert (result.comments_created, result.comments_updated) == (15, 0)
    issue = Issue.objects.get(number=3)
    assert issue.repository.full_name == "deepspeedai/DeepSpeed"
    assert issue.comments.count() == 3
    assert issue.content_hash


def test_re_importing_the_same_records_creates_nothing_and_touches_no_row():
    raw = [rest_issue(n, comments=2) for n in range(1, 6)] + [gh_issue(1)]
    issues_upsert(records=records_of(raw))
    before = snapshot()
    result = issues_upsert(records=records_of(raw))
    assert (result.created, result.updated, result.unchanged) == (0, 0, 6)
    assert (result.comments_created, result.comments_updated) == (0, 0)
    assert snapshot() == before, "an unchanged record must not be written (updated_at would move)"


def test_a_changed_record_updates_its_issue_in_place():
    issues_upsert(records=records_of([rest_issue(1), rest_issue(2)]))
    before = Issue.objects.get(number=1)
    untouched = Issue.objects.get(number=2).updated_at
    result = issues_upsert(records=records_of([rest_issue(1, title="ZeRO-3 hangs (edited)"), rest_issue(2)]))
    assert (result.created, result.updated, result.unchanged) == (0, 1, 1)
    after = Issue.objects.get(number=1)
    assert (after.pk, after.title) == (before.pk, "ZeRO-3 hangs (edited)")
    assert after.updated_at > before.updated_at
    assert after.content_hash != before.content_hash
    assert Issue.objects.get(number=2).updated_at == untouched


def test_comments_are_upserted_by_key_and_a_full_list_removes_deleted_ones():
    first = rest_issue(1, comments=3)
    issues_upsert(records=records_of([first]))
    ids = dict(Comment.objects.values_list("key", "id"))
    second = copy.deepcopy(first)
    second["comment_list"][0]["body"] = "Edited: it was the NCCL version."
    second["comment_list"].pop(2)  # deleted on GitHub
    second["comment_list"].append({"id": 999, "body": "New comment", "user": {"login": "x"}})
    result = issues_upsert(records=records_of([second]))
    assert (result.updated, result.comments_created, result.comments_updated, result.comments_deleted) == (1, 1, 1, 1)
    stored = dict(Comment.objects.values_list("key", "body"))
    assert stored == {
        "101": "Edited: it was the NCCL version.",
        "102": second["comment_list"][1]["body"],
        "999": "New comment",
    }
    assert Comment.objects.get(key="101").pk == ids["101"], "an edited comment keeps its row"


def test_a_record_that_says_nothing_about_comments_keeps_the_stored_ones():
    issues_upsert(records=records_of([rest_issue(1, comments=2)]))
    without = rest_issue(1, title="Retitled")
    without["comments"] = 2
    result = issues_upsert(records=records_of([without]))
    assert result.updated == 1
    assert Comment.objects.count() == 2


def test_old_microsoft_urls_resolve_to_the_current_deepspeed_repository():
    deepspeed = Repository.objects.get(owner="deepspeedai", name="DeepSpeed")
    result = issues_upsert(records=records_of([rest_issue(42, repo="microsoft/DeepSpeed")]))
    issue = Issue.objects.get(number=42)
    assert issue.repository == deepspeed
    assert issue.url == "https://github.com/deepspeedai/DeepSpeed/issues/42"
    assert result.repositories_created == 0
    again = issues_upsert(records=records_of([rest_issue(42, repo="deepspeedai/DeepSpeed")]))
    assert (again.created, again.unchanged) == (0, 1), "the old and the new URL are one issue"


def test_repository_names_are_matched_without_regard_to_case():
    issues_upsert(records=records_of([{"url": "https://github.com/nvidia/megatron-lm/issues/8", "title": "t"}]))
    issue = Issue.objects.get()
    assert issue.repository.full_name == "NVIDIA/Megatron-LM"
    assert issue.url == "https://github.com/NVIDIA/Megatron-LM/issues/8"


def test_unknown_repositories_are_created_and_posts_have_none():
    result = issues_upsert(
        records=records_of(
            [
                {"url": "https://github.com/horovod/horovod/issues/1", "title": "t"},
                {"url": "https://stackoverflow.com/questions/1", "title": "q"},
            ]
        )
    )
    assert result.repositories_created == 1
    assert Repository.objects.filter(owner="horovod", name="horovod").exists()
    assert Issue.objects.get(kind="post").repository is None


def test_an_issue_stored_under_another_url_is_found_by_repository_and_number():
    repo = Repository.objects.get(owner="hpcaitech")
    Issue.objects.create(
        repository=repo, number=5, url="https://github.com/hpcaitech/ColossalAI/issues/5?x=1", title="a"
    )
    result = issues_upsert(
        records=records_of([{"url": "https://github.com/hpcaitech/ColossalAI/issues/5", "title": "b"}])
    )
    assert (result.created, result.updated) == (0, 1)
    assert Issue.objects.get().url == "https://github.com/hpcaitech/ColossalAI/issues/5"


def test_a_record_repeated_in_a_batch_is_written_once_the_last_one_winning():
    raw = [rest_issue(1, title="old"), rest_issue(1, title="new")]
    result = issues_upsert(records=records_of(raw))
    assert (result.created, result.duplicates) == (1, 1)
    assert Issue.objects.get().title == "new"


def test_batches_report_progress_and_commit_separately():
    calls = []
    result = issues_upsert(
        records=records_of([rest_issue(n) for n in range(1, 6)]), batch_size=2, progress=calls.append
    )
    assert calls == [2, 2, 1]
    assert result.created == 5


def test_links_are_added_and_updated_never_removed():
    ref = RepositoryRef("deepspeedai", "DeepSpeed")
    link = LinkRecord(
        kind="pull", relation="closed_by", url="https://github.com/deepspeedai/DeepSpeed/pull/9", number=9
    )

    def record(links, title="t"):
        return IssueRecord(
            url="https://github.com/deepspeedai/DeepSpeed/issues/1", title=title, repository=ref, number=1, links=links
        )

    assert issues_upsert(records=[record([link])]).links_created == 1
    merged = LinkRecord(**{**{f: getattr(link, f) for f in link.__slots__}, "merged": True})
    other = LinkRecord(
        kind="commit", relation="referenced", url="https://github.com/deepspeedai/DeepSpeed/commit/abc", sha="abc"
    )
    result = issues_upsert(records=[record([merged, other])])
    assert (result.links_created, result.links_updated) == (1, 1)
    issues_upsert(records=[record([], title="changed")])
    assert IssueLink.objects.count() == 2
    assert IssueLink.objects.get(kind="pull").merged is True


def test_comment_records_from_another_importer_are_stored_as_given():
    ref = RepositoryRef("NVIDIA", "Megatron-LM")
    comment = CommentRecord(
        key="77", body="é ✓", author="a", url="https://github.com/NVIDIA/Megatron-LM/issues/2#issuecomment-77"
    )
    record = IssueRecord(
        url="https://github.com/NVIDIA/Megatron-LM/issues/2", title="t", repository=ref, number=2, comments=[comment]
    )
    issues_upsert(records=[record])
    assert Comment.objects.get().body == "é ✓"


def test_a_one_megabyte_unicode_body_is_stored_whole():
    body = "分布式训练 😀 " * 110_000
    issues_upsert(records=records_of([rest_issue(1, body=body)]))
    assert Issue.objects.get().body == body


def _queries_for(n: int) -> dict[str, int]:
    Issue.objects.all().delete()
    records = records_of([rest_issue(i, comments=2) for i in range(1, n + 1)])
    with CaptureQueriesContext(connection) as ctx:
        issues_upsert(records=records, batch_size=2000)
    kinds: dict[str, int] = {}
    for query in ctx.captured_queries:
        verb = query["sql"].split(None, 1)[0].upper()
        kinds[verb] = kinds.get(verb, 0) + 1
    return kinds


def test_the_number_of_queries_does_not_grow_with_the_number_of_records():
    small, large = _queries_for(500), _queries_for(2000)
    assert large.get("SELECT") == small.get("SELECT"), (small, large)
    assert large.get("UPDATE", 0) == small.get("UPDATE", 0) == 0
    if connection.vendor == "postgresql":
        assert large == small
    else:
        # SQLite caps a statement at 999 parameters, so Django splits each bulk INSERT in chunks.
        assert sum(large.values()) < 2000 / 10, large
