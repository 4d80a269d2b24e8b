"""The sync service against the fake GitHub: what gets stored, and how few requests it takes."""

import pytest

from annotator.importers.github import GitHubHTTPError
from annotator.models import Comment, ImportedIssue, ImportJob, Issue, IssueLink, Repository, RepositoryAlias
from annotator.services.github_sync import github_import_continue, github_import_start
from tests.annotator.github.conftest import REPO, seed

pytestmark = pytest.mark.django_db


def run(make_client, *, progress=None, client=None, **options):
    job = github_import_start(repository=options.pop("repository", REPO), enqueue=False, **options)
    return github_import_continue(job=job, client=client or make_client(), progress=progress)


def test_every_issue_is_stored_once_with_its_comments(github_settings, fake_github, make_client, seeded):
    job = run(make_client)

    repo = Repository.objects.get(name__iexact="DeepSpeed")
    assert job.status == ImportJob.Status.DONE, job.error
    assert Issue.objects.filter(repository=repo).count() == 220
    assert Issue.objects.filter(repository=repo, kind=Issue.Kind.PULL).count() == 0
    assert job.counts["created"] == 220
    assert job.counts["pulls_skipped"] == 30
    numbers = list(Issue.objects.filter(repository=repo).values_list("number", flat=True))
    assert len(numbers) == len(set(numbers))
    stored = Comment.objects.filter(issue__repository=repo).count()
    commented_pulls = sum(1 for item in seeded[::5] if "pull_request" in item)
    assert stored == 2 * (50 - commented_pulls)
    assert job.counts["comments_skipped"] == 2 * commented_pulls
    first = seeded[0]
    issue = Issue.objects.get(repository=repo, number=first["number"])
    assert issue.comments.count() == 2
    assert issue.labels == ["bug"]
    assert issue.author == first["user"]["login"]


def test_listings_are_asked_in_update_order_one_stream_for_comments(github_settings, fake_github, make_client, seeded):
    run(make_client)

    issue_requests = fake_github.requests_to("/issues")
    assert [r.query.get("page", "1") for r in issue_requests] == ["1", "2", "3"]
    assert issue_requests[0].query == {
        "state": "all",
        "per_page": "100",
        "sort": "updated",
        "direction": "asc",
    }
    comment_requests = fake_github.requests_to("/issues/comments")
    assert len(comment_requests) == 1  # 100 comments: one page, not one request per issue
    headers = issue_requests[0].headers
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["authorization"] == "Bearer test-token"
    assert headers["user-agent"]
    assert len(fake_github.requests) == 4


def test_pull_requests_are_flagged_when_included(github_settings, fake_github, make_client, seeded):
    job = run(make_client, include_pulls=True)

    assert job.counts["created"] == 250
    assert Issue.objects.filter(kind=Issue.Kind.PULL).count() == 30
    assert Comment.objects.count() == 100


def test_fix_links_come_from_the_timelines_of_closed_issues(github_settings, fake_github, make_client):
    seed(fake_github, issues=3, closed=2)
    closed = [n for n, i in fake_github.repo(REPO).issues.items() if i["state"] == "closed"]
    fake_github.add_fix(REPO, closed[0], pull_number=99, sha="abc123")

    job = run(make_client, fix_links=True)

    assert job.counts["timelines"] == 2
    timeline_requests = fake_github.requests_to("/timeline")
    assert sorted(int(r.path.split("/")[-2]) for r in timeline_requests) == sorted(closed)
    links = IssueLink.objects.filter(issue__number=closed[0]).order_by("kind")
    assert [(link.kind, link.relation, link.number, link.sha) for link in links] == [
        ("commit", "closed_by", None, "abc123"),
        ("pull", "cross_referenced", 99, ""),
    ]
    assert links[0].url == f"https://github.com/{REPO}/commit/abc123"
    assert links[1].merged is True
    assert not IssueLink.objects.filter(issue__number=closed[1]).exists()


def test_an_exhausted_rate_limit_is_waited_out(github_settings, fake_github, make_client, sleeps, seeded):
    fake_github.faults[2] = "rate_limit"  # the second page answers 403 with a reset a second ahead

    job = run(make_client)

    assert job.status == ImportJob.Status.DONE
    assert Issue.objects.count() == 220
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 3
    assert job.counts["rate_limit_waits"] == 1
    assert [r.status for r in fake_github.requests_to("/issues")] == [200, 403, 200, 200]


def test_a_transient_502_is_retried(github_settings, fake_github, make_client, sleeps, seeded):
    fake_github.faults[1] = "502"

    job = run(make_client)

    assert job.status == ImportJob.Status.DONE
    assert Issue.objects.count() == 220
    assert job.counts["retries"] == 1
    assert len(sleeps) == 1


def crashed_after_page_two(make_client) -> ImportJob:
    """A sync whose worker died once the second page of issues was committed."""

    def crash_after_second_page(job, client):
        if job.cursor.get("phase") == "issues" and job.cursor.get("page") == 2:
            raise RuntimeError("worker killed")

    job = github_import_start(repository=REPO, enqueue=False)
    with pytest.raises(RuntimeError):
        github_import_continue(job=job, client=make_client(), progress=crash_after_second_page)
    job.refresh_from_db()
    return job


def test_a_crash_after_page_two_resumes_at_page_three(github_settings, fake_github, make_client, seeded):
    job = crashed_after_page_two(make_client)
    assert job.status == ImportJob.Status.FAILED
    assert "start the job again" in job.error
    assert Issue.objects.count() == 200 - 24  # pages 1-2 hold 24 pull requests among the first 200
    fake_github.requests.clear()

    github_import_continue(job=job, client=make_client())

    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE
    assert fake_github.requests[0].query.get("page") == "3"
    assert Issue.objects.count() == 220
    assert job.counts["created"] == 220
    assert job.counts["unchanged"] == 0


def batch(job: ImportJob) -> set[int]:
    return set(ImportedIssue.objects.filter(job=job).values_list("issue_id", flat=True))


def test_a_sync_records_each_issue_it_wrote_or_found_unchanged_as_its_batch(
    github_settings, fake_github, make_client, seeded
):
    first = run(make_client)
    assert batch(first) == set(Issue.objects.values_list("pk", flat=True))  # 220 issues, no skipped pulls
    changed = fake_github.update_issue(REPO, seeded[0]["number"], title="Renamed title")

    fake_github.requests.clear()

    second = run(make_client)  # since the high-water mark: the changed issue and the last one(s), unchanged
    since = fake_github.requests_to("/issues")[0].query["since"]
    items = fake_github.repo(REPO).issues.values()
    listed = {i["number"] for i in items if i["updated_at"] >= since and "pull_request" not in i}
    assert changed["number"] in listed and len(listed) < 220
    assert batch(second) == set(Issue.objects.filter(number__in=listed).values_list("pk", flat=True))
    assert second.counts["updated"] == 1 and second.counts["unchanged"] >= 1
    assert len(batch(first)) == 220, "an earlier job's batch stays as it was"


def test_a_resumed_sync_records_its_batch_once(github_settings, fake_github, make_client, seeded):
    job = crashed_after_page_two(make_client)
    assert len(batch(job)) == 200 - 24  # what the two committed pages stored, committed with them
    github_import_continue(job=job, client=make_client())
    assert ImportedIssue.objects.filter(job=job).count() == 220 == len(batch(job))


def test_a_rerun_is_incremental_and_then_costs_only_304s(github_settings, fake_github, make_client, seeded):
    run(make_client)
    last_issue = max(seeded, key=lambda i: i["updated_at"])
    fake_github.requests.clear()

    second = run(make_client)  # asks only since the high-water mark: the last item(s) again

    issues_request = fake_github.requests_to("/issues")[0]
    assert issues_request.query["since"] == max(i["updated_at"] for i in seeded)
    assert second.counts.get("created", 0) == 0
    assert Issue.objects.count() == 220 and Comment.objects.count() == 2 * 44
    fake_github.requests.clear()

    third = run(make_client)

    assert [r.status for r in fake_github.requests] == [304, 304]
    assert all(r.headers.get("if-none-match") for r in fake_github.requests)
    assert third.counts["not_modified"] == 2
    assert Issue.objects.count() == 220
    assert last_issue


def test_since_asks_only_for_changes_and_updates_in_place(github_settings, fake_github, make_client, seeded):
    run(make_client)
    changed = fake_github.update_issue(REPO, seeded[0]["number"], title="Renamed title")
    comment = fake_github.add_comment(REPO, seeded[0]["number"], body="A new finding")
    fake_github.requests.clear()

    job = run(make_client)

    assert fake_github.requests_to("/issues")[0].query["since"] >= seeded[-1]["updated_at"]
    assert len(fake_github.requests) == 2
    assert job.counts["updated"] == 1
    issue = Issue.objects.get(number=changed["number"])
    assert issue.title == "Renamed title"
    assert issue.comments.filter(key=str(comment["id"]), body="A new finding").exists()
    assert Issue.objects.count() == 220


def test_an_explicit_since_is_sent(github_settings, fake_github, make_client, seeded):
    from annotator.importers.github import parse_datetime

    since = sorted(i["updated_at"] for i in seeded)[200]
    run(make_client, since=parse_datetime(since))

    assert fake_github.requests_to("/issues")[0].query["since"] == since
    assert Issue.objects.count() == sum(1 for i in seeded if "pull_request" not in i and i["updated_at"] >= since)
    assert Issue.objects.count() < 50


def test_a_404_stops_the_job_with_a_clear_error(github_settings, fake_github, make_client):
    job = github_import_start(repository="nobody/nothing", enqueue=False)

    with pytest.raises(GitHubHTTPError):
        github_import_continue(job=job, client=make_client())

    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert job.error.startswith("GitHub answered 404 Not Found for /repos/nobody/nothing/issues:")
    assert "check the repository name and GITHUB_TOKEN" in job.error
    assert len(fake_github.requests) == 1  # a 4xx is not retried
    assert not Issue.objects.exists()


def test_a_renamed_repository_is_followed_and_its_old_name_kept(github_settings, fake_github, make_client):
    seed(fake_github, "microsoft/Old", issues=3)
    fake_github.rename("microsoft/Old", "deepspeedai/New")

    job = run(make_client, repository="microsoft/Old")

    assert job.status == ImportJob.Status.DONE
    repo = Repository.objects.get(pk=job.parameters["repository_id"])
    assert (repo.owner, repo.name) == ("deepspeedai", "New")
    assert RepositoryAlias.objects.filter(repository=repo, owner="microsoft", name="Old").exists()
    assert fake_github.requests[0].status == 301
    assert Issue.objects.filter(repository=repo).count() == 3
    assert all("/deepspeedai/New/" in url for url in Issue.objects.values_list("url", flat=True))


def test_limit_stops_after_n_issues_and_the_next_sync_continues(github_settings, fake_github, make_client, seeded):
    job = run(make_client, limit=5)

    assert job.counts["created"] == 5
    assert len(fake_github.requests_to("/issues")) == 1

    second = run(make_client, limit=5)

    # The next sync starts at the fifth issue's update time (inclusive): it comes again, unchanged.
    assert (second.counts["created"], second.counts["unchanged"]) == (4, 1)
    assert Issue.objects.count() == 9
