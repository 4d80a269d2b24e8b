"""Fix links (issue timelines) on incremental syncs: read once for every closed issue that changed since."""

import pytest

from annotator.models import IssueLink
from annotator.services.github_sync import github_import_continue, github_import_start
from tests.annotator.github.conftest import REPO, seed

pytestmark = pytest.mark.django_db


def run(make_client, **options):
    job = github_import_start(repository=REPO, enqueue=False, **options)
    return github_import_continue(job=job, client=make_client())


def timelines_read(fake_github) -> list[int]:
    return sorted(int(r.path.split("/")[-2]) for r in fake_github.requests_to("/timeline"))


def closed_numbers(fake_github) -> list[int]:
    return sorted(n for n, issue in fake_github.repo(REPO).issues.items() if issue["state"] == "closed")


@pytest.fixture
def synced(github_settings, fake_github, make_client):
    """A repository with open and closed issues and comments, synced once with fix links."""
    seed(fake_github, issues=3, closed=3)
    fake_github.add_comment(REPO, 1)
    run(make_client, fix_links=True)
    assert timelines_read(fake_github) == closed_numbers(fake_github)
    fake_github.requests.clear()
    return fake_github


def test_find_fixes_after_a_sync_without_them_reads_every_closed_issue(github_settings, fake_github, make_client):
    seed(fake_github, issues=3, closed=3)
    fake_github.add_comment(REPO, 1)  # the comments listing then has a high-water mark of its own
    run(make_client)
    fake_github.add_fix(REPO, closed_numbers(fake_github)[0], pull_number=99, sha="abc123")
    fake_github.requests.clear()

    job = run(make_client, fix_links=True)

    assert timelines_read(fake_github) == closed_numbers(fake_github), "no closed issue has had its fixes read"
    assert job.counts["timelines"] == 3
    assert IssueLink.objects.filter(issue__number=closed_numbers(fake_github)[0], number=99).exists()


def test_an_issue_closed_since_the_last_sync_has_its_fix_read(synced, make_client):
    synced.close_issue(REPO, 1)
    synced.add_fix(REPO, 1, pull_number=77, sha="def456")

    job = run(make_client, fix_links=True)

    assert timelines_read(synced) == [1]
    assert job.counts["timelines"] == 1
    assert IssueLink.objects.filter(issue__number=1, number=77).exists()


def test_an_issue_closed_while_a_sync_ran_without_fix_links_is_read_by_the_next_with_them(synced, make_client):
    synced.close_issue(REPO, 1)
    synced.add_fix(REPO, 1, pull_number=77, sha="def456")
    synced.add_comment(REPO, 3)  # a later comment moves the comments listing's mark past the closing
    run(make_client)
    synced.requests.clear()

    job = run(make_client, fix_links=True)

    assert timelines_read(synced) == [1]
    assert job.counts["timelines"] == 1
    assert IssueLink.objects.filter(issue__number=1, number=77).exists()


def test_nothing_changed_reads_no_timeline_again(synced, make_client):
    job = run(make_client, fix_links=True)

    assert timelines_read(synced) == []
    assert job.counts.get("timelines", 0) == 0


def test_full_reads_every_closed_issue_again(synced, make_client):
    job = run(make_client, fix_links=True, full=True)

    assert timelines_read(synced) == closed_numbers(synced)
    assert job.counts["timelines"] == 3
