"""Fix details (phase "fixes"): each linked pull request and commit read from the fake GitHub on 127.0.0.1."""

import pytest

from annotator.models import FixDetail, FixFile, ImportJob, Issue, IssueLink
from annotator.selectors.fixes import issue_fixes
from annotator.services.github_sync import github_import_continue, github_import_start, jobs
from tests.annotator.github.conftest import REPO, seed

pytestmark = pytest.mark.django_db


def run(make_client, **options):
    job = github_import_start(repository=REPO, enqueue=False, **options)
    return github_import_continue(job=job, client=make_client())


def fix_requests(fake) -> list:
    return [r for r in fake.requests if "/pulls/" in r.path or "/commits/" in r.path]


@pytest.fixture
def fixed(github_settings, fake_github):
    """Three closed issues, each fixed by a pull request (3 files) and a commit (2 files)."""
    seed(fake_github, issues=2, closed=3)
    closed = sorted(n for n, i in fake_github.repo(REPO).issues.items() if i["state"] == "closed")
    for k, number in enumerate(closed):
        fake_github.add_fix(REPO, number, pull_number=500 + k, sha=f"{k + 1:x}" * 40)
    return fake_github


def test_fix_details_store_each_pull_request_and_commit_with_their_files(fixed, make_client):
    job = run(make_client, fix_details=True)

    assert job.status == ImportJob.Status.DONE, job.error
    assert job.parameters["fix_details"] is True and job.parameters["fix_links"] is True
    pull = FixDetail.objects.get(link__kind=IssueLink.Kind.PULL, link__number=500)
    assert (pull.merged, pull.additions, pull.deletions, pull.changed_files) == (True, 6, 3, 3)
    assert (pull.commits, pull.comments, pull.review_comments) == (1, 2, 1)
    assert pull.opened_at < pull.merged_at and pull.files_complete and pull.etag.startswith('W/"')
    assert sorted(pull.files.values_list("path", flat=True)) == [
        f"deepspeed/runtime/module_500_{i}.py" for i in range(3)
    ]
    commit = FixDetail.objects.get(link__kind=IssueLink.Kind.COMMIT, link__sha="1" * 40)
    assert (commit.additions, commit.deletions, commit.changed_files, commit.commits) == (6, 2, 2, 1)
    assert commit.committed_at is not None and commit.merged is None and commit.files_complete
    assert FixDetail.objects.count() == 6 and FixFile.objects.count() == 3 * 3 + 3 * 2
    # The minimum: one request per pull request plus one per page of its files, one per commit page.
    assert len(fix_requests(fixed)) == 3 * 2 + 3
    assert job.counts["fixes_fetched"] == 6 and job.counts["fix_files"] == 15
    assert job.counts["fix_requests"] == 9


def test_an_interrupted_job_resumes_after_the_last_fix_it_stored(fixed, make_client, monkeypatch):
    monkeypatch.setattr(jobs, "FIX_BATCH", 2)
    job = github_import_start(repository=REPO, enqueue=False, fix_details=True)

    def crash_after_two_fixes(job, client):
        if job.cursor.get("phase") == "fixes":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        github_import_continue(job=job, client=make_client(), progress=crash_after_two_fixes)
    assert FixDetail.objects.count() == 2
    job.refresh_from_db()
    job.status = ImportJob.Status.FAILED  # as the claim's recovery leaves a dead run
    job.save(update_fields=["status"])

    job = github_import_continue(job=job, client=make_client())

    assert job.status == ImportJob.Status.DONE, job.error
    assert FixDetail.objects.count() == 6
    resources = [r.path for r in fix_requests(fixed) if not r.path.endswith("/files")]
    assert len(resources) == len(set(resources)) == 6, "a fix was fetched twice"


def test_a_second_sync_reads_no_fix_and_a_full_one_is_answered_304_only(fixed, make_client):
    run(make_client, fix_details=True)
    fixed.requests.clear()

    again = run(make_client, fix_details=True)
    assert fix_requests(fixed) == [], "an unchanged issue had its fixes read again"
    assert again.counts.get("fix_requests", 0) == 0

    full = run(make_client, fix_details=True, full=True)
    asked = fix_requests(fixed)
    assert len(asked) == 6 and {r.status for r in asked} == {304}
    assert all(r.headers.get("if-none-match", "").startswith('W/"') for r in asked)
    assert full.counts["fixes_unchanged"] == 6 and full.counts.get("fixes_fetched", 0) == 0
    assert FixFile.objects.count() == 15


def test_an_issue_changed_since_has_its_fixes_asked_again_and_a_changed_fix_is_reread(fixed, make_client):
    run(make_client, fix_details=True)
    first = FixDetail.objects.get(link__number=500)
    issue_number = first.link.issue.number
    fixed.repo(REPO).pulls[500].update(additions=40, review_comments=5)
    fixed.add_comment(REPO, issue_number)  # the issue changes: its fixes are read again
    fixed.requests.clear()

    job = run(make_client, fix_details=True)

    asked = {r.path: r.status for r in fix_requests(fixed)}
    assert asked == {
        f"/repos/{REPO}/pulls/500": 200,
        f"/repos/{REPO}/pulls/500/files": 200,
        f"/repos/{REPO}/commits/{'1' * 40}": 304,
    }
    first.refresh_from_db()
    assert (first.additions, first.review_comments) == (40, 5)
    assert job.counts["fixes_fetched"] == 1 and job.counts["fixes_unchanged"] == 1


def test_github_lists_at_most_3000_files_of_a_pull_request(github_settings, fake_github, make_client):
    seed(fake_github, closed=1)
    fake_github.add_fix(REPO, 1, pull_number=900, sha="a" * 40, files=3200)
    fake_github.add_commit(REPO, "a" * 40, files=700)  # a commit's files come 300 a page

    job = run(make_client, fix_details=True)

    pull = FixDetail.objects.get(link__number=900)
    assert pull.changed_files == 3200 and pull.files.count() == 3000
    assert pull.files_complete is False, "a pull request beyond GitHub's 3,000 files looks complete"
    assert len(fake_github.requests_to("/pulls/900/files")) == 30
    commit = FixDetail.objects.get(link__sha="a" * 40)
    assert commit.files.count() == 700 and commit.files_complete
    assert len(fake_github.requests_to(f"/commits/{'a' * 40}")) == 3
    assert job.counts["fixes_files_incomplete"] == 1


def test_a_change_beyond_github_s_3000_files_is_measured_whole_and_says_its_list_was_cut(
    github_settings, fake_github, make_client
):
    seed(fake_github, closed=2)
    fake_github.add_commit(REPO, "e" * 40, files=3200)  # its stats count all 3,200 files; 3,000 are listed
    fake_github.add_fix(REPO, 1, pull_number=901, sha="e" * 40, merged=False, files=1)  # fixed by the commit
    fake_github.add_fix(REPO, 2, pull_number=902, sha=None, files=3200)

    job = run(make_client, fix_details=True)

    assert job.status == ImportJob.Status.DONE, job.error
    commit = FixDetail.objects.get(link__sha="e" * 40)
    assert (commit.additions, commit.deletions) == (3 * 3200, 3200), "the lines were summed from the listed files"
    assert commit.changed_files == commit.files.count() == 3000 and commit.files_complete is False
    fixes = issue_fixes(Issue.objects.filter(number__in=[1, 2]).values_list("pk", flat=True))
    by_commit, by_pull = (fixes[Issue.objects.get(number=n).pk] for n in (1, 2))
    assert (by_commit.lines_changed, by_commit.files, by_commit.files_complete) == (4 * 3200, 3000, False)
    assert (by_pull.lines_changed, by_pull.files, by_pull.files_complete) == (3 * 3200, 3200, False)
    assert job.counts["fixes_files_incomplete"] == 2


@pytest.mark.parametrize(
    ("where", "change"),
    [
        ("pull", {"additions": -1}),
        ("pull", {"deletions": "12"}),
        ("pull", {"changed_files": 2**40}),
        ("pull", {"merged": "yes"}),
        ("pull", {"merged_at": "yesterday"}),
        ("pull", {"review_comments": 1.5}),
        ("file", {"filename": "deepspeed/\x00evil.py"}),
        ("file", {"filename": "d/" * 501}),
        ("file", {"filename": ""}),
        ("file", {"status": "exploded"}),
        ("file", {"additions": -5}),
        ("file", {"previous_filename": "a\nb"}),
        ("file", {"filename": "deepspeed/runtime/module_900_1.py"}),  # the same path twice
    ],
)
def test_hostile_values_are_refused_and_nothing_of_that_fix_is_written(
    github_settings, fake_github, make_client, where, change
):
    seed(fake_github, closed=1)
    fake_github.add_fix(REPO, 1, pull_number=900, sha="b" * 40)
    if where == "pull":
        fake_github.repo(REPO).pulls[900].update(change)
    else:
        fake_github.repo(REPO).pull_files[900][0].update(change)

    job = run(make_client, fix_details=True)

    assert job.status == ImportJob.Status.DONE, job.error
    assert not FixDetail.objects.filter(link__number=900).exists()
    assert FixDetail.objects.filter(link__sha="b" * 40).exists(), "the other fix was not stored"
    assert job.counts["fixes_refused"] == 1 and job.counts["fixes_fetched"] == 1


def test_a_fix_github_no_longer_serves_is_counted_and_passed_over(github_settings, fake_github, make_client):
    seed(fake_github, closed=1)
    fake_github.add_fix(REPO, 1, pull_number=900, sha="c" * 40)
    del fake_github.repo(REPO).pulls[900]

    job = run(make_client, fix_details=True)

    assert job.status == ImportJob.Status.DONE, job.error
    assert job.counts["fixes_not_found"] == 1 and job.counts["fixes_fetched"] == 1


def test_a_rate_limit_during_fix_details_is_waited_out(github_settings, fake_github, make_client, sleeps):
    seed(fake_github, closed=1)
    fake_github.add_fix(REPO, 1, pull_number=900, sha="d" * 40)
    github_requests_before_fixes = 4  # issues, comments, the timeline page, then the pull request
    fake_github.faults[github_requests_before_fixes] = "rate_limit"

    job = run(make_client, fix_details=True)

    assert job.status == ImportJob.Status.DONE, job.error
    assert fake_github.requests[3].path == f"/repos/{REPO}/pulls/900" and fake_github.requests[3].status == 403
    assert sleeps and job.counts["rate_limit_waits"] == 1
    assert FixDetail.objects.count() == 2


def test_links_to_another_host_are_not_requested(github_settings, fake_github, make_client):
    seed(fake_github, closed=1)
    run(make_client, fix_links=True)
    issue = Issue.objects.get(number=1)
    IssueLink.objects.create(
        issue=issue, kind="pull", relation="manual", url="https://evil.example/deepspeedai/DeepSpeed/pull/1", number=1
    )
    fake_github.requests.clear()

    job = run(make_client, fix_details=True)

    assert fix_requests(fake_github) == []
    assert job.counts["fixes_skipped"] == 1
