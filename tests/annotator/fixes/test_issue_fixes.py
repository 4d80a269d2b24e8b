"""Per-issue fix effort read from the linked changes' fix details."""

import datetime as dt

import pytest
from django.utils import timezone

from annotator.models import IssueLink
from annotator.selectors.fixes import issue_fixes, repository_unmapped_paths
from tests.annotator.factories_issues import (
    CommentFactory,
    ComponentRuleFactory,
    FixDetailFactory,
    FixFileFactory,
    IssueFactory,
    IssueLinkFactory,
    RepositoryFactory,
)

pytestmark = pytest.mark.django_db

OPENED = timezone.make_aware(dt.datetime(2025, 3, 1, 12, 0))


def _pull(issue, *, number, merged=True, relation=IssueLink.Relation.CROSS_REFERENCED, hours=24, files=(), **sizes):
    link = IssueLinkFactory(issue=issue, number=number, relation=relation, merged=merged)
    detail = FixDetailFactory(link=link, merged=merged, merged_at=OPENED + dt.timedelta(hours=hours), **sizes)
    for path, added, deleted in files:
        FixFileFactory(detail=detail, path=path, additions=added, deletions=deleted)
    return detail


@pytest.fixture
def repo():
    repository = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    ComponentRuleFactory(
        repository=repository, pattern="deepspeed/runtime/zero/stage3.py", component="ZeRO-3", position=0
    )
    ComponentRuleFactory(repository=repository, pattern="deepspeed/runtime/zero", component="ZeRO", position=1)
    ComponentRuleFactory(repository=repository, pattern="deepspeed/runtime/pipe/**", component="Pipeline", position=2)
    return repository


def test_merged_pulls_are_the_fix_and_their_sizes_add_up(repo):
    issue = IssueFactory(repository=repo, created=OPENED, closed=OPENED + dt.timedelta(hours=80), comment_count=3)
    _pull(
        issue,
        number=1,
        hours=30,
        additions=7,
        deletions=3,
        files=[("deepspeed/runtime/zero/stage3.py", 5, 3), ("setup.py", 2, 0)],
    )
    _pull(issue, number=2, hours=50, additions=4, deletions=1, files=[("deepspeed/runtime/pipe/engine.py", 4, 1)])
    _pull(issue, number=3, merged=False, hours=10, additions=900, deletions=900)  # closed unmerged: a mention
    commit = IssueLinkFactory(issue=issue, kind=IssueLink.Kind.COMMIT, number=None, sha="abc", url="https://x/c/abc")
    FixDetailFactory(link=commit, merged=None, merged_at=None, additions=500, deletions=0)  # the merge commit
    CommentFactory(issue=issue, author="alice")
    CommentFactory(issue=issue, author="alice")
    CommentFactory(issue=issue, author="reporter")  # the issue's author commenting is one participant

    fix = issue_fixes([issue.pk])[issue.pk]

    assert (fix.has_fix, fix.fixes) == (True, 2)
    assert (fix.additions, fix.deletions, fix.lines_changed) == (11, 4, 15)
    assert fix.files == 3
    assert fix.components == ("Pipeline", "ZeRO-3")
    assert fix.unmapped_files == 1  # setup.py
    assert fix.hours_to_fix == 50.0  # the last fixing change's merge
    assert fix.hours_to_close == 80.0
    assert (fix.comments, fix.participants) == (3, 2)


def test_links_added_by_hand_override_the_timeline(repo):
    issue = IssueFactory(repository=repo, created=OPENED)
    _pull(issue, number=1, additions=100, deletions=0)
    _pull(issue, number=2, relation=IssueLink.Relation.MANUAL, additions=3, deletions=1, hours=5)

    fix = issue_fixes([issue.pk])[issue.pk]

    assert (fix.fixes, fix.lines_changed, fix.hours_to_fix) == (1, 4, 5.0)


def test_closing_commit_when_no_pull_request_was_merged(repo):
    issue = IssueFactory(repository=repo, created=OPENED, author="")
    commit = IssueLinkFactory(issue=issue, kind=IssueLink.Kind.COMMIT, number=None, sha="f00", url="https://x/c/f00")
    FixDetailFactory(
        link=commit, merged=None, merged_at=None, committed_at=OPENED + dt.timedelta(hours=6), additions=2, deletions=2
    )
    IssueLinkFactory(issue=issue, kind=IssueLink.Kind.COMMIT, relation=IssueLink.Relation.REFERENCED, sha="1", url="u")

    fix = issue_fixes([issue.pk])[issue.pk]

    assert (fix.fixes, fix.lines_changed, fix.hours_to_fix, fix.participants) == (1, 4, 6.0, 0)
    assert fix.files == 1  # no file rows yet: GitHub's own count


def test_an_issue_without_fix_or_details(repo):
    bare = IssueFactory(repository=repo, created=OPENED)
    linked = IssueFactory(repository=repo, created=OPENED)
    IssueLinkFactory(issue=linked, number=9)  # a merged pull request whose details were not fetched yet

    fixes = issue_fixes([bare.pk, linked.pk])

    assert (fixes[bare.pk].has_fix, fixes[bare.pk].measured, fixes[bare.pk].lines_changed) == (False, False, None)
    assert (fixes[linked.pk].has_fix, fixes[linked.pk].measured, fixes[linked.pk].hours_to_fix) == (True, False, None)


def test_queries_do_not_grow_with_issues(repo, django_assert_max_num_queries):
    issues = [IssueFactory(repository=repo, created=OPENED) for _ in range(12)]
    for n, issue in enumerate(issues):
        _pull(issue, number=100 + n, files=[(f"deepspeed/runtime/zero/f{n}.py", 1, 1)])
    with django_assert_max_num_queries(4):
        fixes = issue_fixes([issue.pk for issue in issues])
    assert {fix.components for fix in fixes.values()} == {("ZeRO",)}


def test_unmapped_paths_most_changed_first(repo):
    for n in range(3):
        issue = IssueFactory(repository=repo, created=OPENED)
        files = [("setup.py", 1, 0), ("deepspeed/runtime/zero/a.py", 1, 0)] + ([("docs/x.md", 1, 0)] if n == 0 else [])
        _pull(issue, number=200 + n, files=files)

    assert repository_unmapped_paths(repo) == [("setup.py", 3), ("docs/x.md", 1)]
