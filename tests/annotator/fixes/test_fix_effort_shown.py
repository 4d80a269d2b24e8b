"""Fix effort where people read an issue: the issue page, the adjudication page and the issue API."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotator.models import Issue, StudyIssue
from tests.annotator.factories_issues import (
    CommentFactory,
    ComponentRuleFactory,
    FixDetailFactory,
    FixFileFactory,
    IssueFactory,
    IssueLinkFactory,
)
from tests.annotator.worlds import labels, make_world, submit

pytestmark = pytest.mark.django_db
OPENED = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)


def fixed(issue: Issue) -> Issue:
    """A fix of 40 + 10 lines in two files (one in ZeRO-3, one in no component), merged 3 days after opening."""
    issue.created, issue.closed, issue.comment_count, issue.author = (
        OPENED,
        OPENED + dt.timedelta(days=4),
        2,
        "reporter",
    )
    issue.save()
    ComponentRuleFactory(repository=issue.repository, pattern="deepspeed/runtime/zero/**", component="ZeRO-3")
    detail = FixDetailFactory(
        link=IssueLinkFactory(issue=issue),
        opened_at=OPENED + dt.timedelta(days=1),
        merged_at=OPENED + dt.timedelta(days=3),
        additions=40,
        deletions=10,
        changed_files=2,
    )
    FixFileFactory(detail=detail, path="deepspeed/runtime/zero/stage3.py")
    FixFileFactory(detail=detail, path="setup.py")
    CommentFactory(issue=issue, author="maintainer")
    CommentFactory(issue=issue, author="reporter")
    return issue


def effort_panel(html: str) -> str:
    start = html.index('data-testid="fix-effort"')
    return html[start : html.index("</section>", start)]


def test_the_issue_page_shows_the_fix_size_components_and_times(client_as, users):
    issue = fixed(IssueFactory())

    panel = effort_panel(client_as("rater_a").get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode())

    assert 'data-testid="fix-lines">50 ' in panel and "(+40 −10)" in panel
    assert 'data-testid="fix-files">2<' in panel
    assert "ZeRO-3" in panel and "1 file in no component" in panel
    assert 'data-testid="fix-time">3.0 days<' in panel
    assert 'data-testid="fix-close">4.0 days<' in panel
    assert "2 comments, 2 participants" in panel


def test_the_issue_page_says_when_github_listed_only_part_of_the_files(client_as, users):
    issue = fixed(IssueFactory())
    detail = issue.links.get().fix_detail
    detail.changed_files, detail.files_complete = 3200, False  # a pull request GitHub listed 3,000 files of
    detail.save()
    url = reverse("annotator:issue_detail", args=[issue.pk])

    panel = effort_panel(client_as("rater_a").get(url).content.decode())

    assert 'data-testid="fix-files">3200 ' in panel and 'data-testid="fix-files-truncated"' in panel
    assert "at most 3,000 a change" in panel


def test_an_issue_without_a_linked_fix_says_so(client_as, users):
    issue = IssueFactory()

    panel = effort_panel(client_as("rater_a").get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode())

    assert "No fixing pull request or commit is linked." in panel
    assert 'data-testid="fix-lines"' not in panel


def test_a_fix_linked_but_not_fetched_asks_for_fix_details(client_as, users):
    issue = IssueFactory()
    IssueLinkFactory(issue=issue)

    panel = effort_panel(client_as("rater_a").get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode())

    assert "import from GitHub with fix details" in panel


def test_the_adjudication_page_shows_the_fix_effort(users, outsider, client_for):
    world = make_world(users)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    study_issue = StudyIssue.objects.get(pk=world.issue_ids[0])
    fixed(study_issue.issue)

    html = client_for("adjudicator").get(f"/studies/{world.study.pk}/adjudication/{study_issue.pk}/").content.decode()

    panel = effort_panel(html)
    assert "(+40 −10)" in panel and "ZeRO-3" in panel and "3.0 days" in panel


def test_the_issue_api_carries_the_fix_effort(users):
    from rest_framework.test import APIClient

    issue = fixed(IssueFactory())
    api = APIClient()
    api.force_authenticate(get_user_model().objects.get(username="rater_a"))

    fix = api.get(f"/api/v1/issues/{issue.pk}/").json()["fix"]

    assert fix == {
        "has_fix": True,
        "fixes": 1,
        "additions": 40,
        "deletions": 10,
        "lines_changed": 50,
        "files": 2,
        "files_complete": True,
        "components": ["ZeRO-3"],
        "unmapped_files": 1,
        "hours_to_fix": 72.0,
        "hours_to_close": 96.0,
        "comments": 2,
        "participants": 2,
    }
