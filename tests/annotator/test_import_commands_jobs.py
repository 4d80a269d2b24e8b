"""The command-line imports are recorded as ImportJobs, like the browser's, so the Imports page lists them.

import_issues, import_github and import_sheets: kind, source, who (--user), running -> done / failed,
counts, the error of a failed run (naming file and line) and start and finish times.
"""

import json
from io import StringIO

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from annotator.models import ImportJob, Issue, Study
from annotator.services import imports as import_services
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.github.conftest import REPO, seed
from tests.annotator.importers.file_records import gh_issue, rest_issue, write_json
from tests.annotator.sheets_import.conftest import run_import
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def import_issues(path, *args):
    out, err = StringIO(), StringIO()
    call_command("import_issues", str(path), "--no-progress", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def the_job() -> ImportJob:
    jobs = list(ImportJob.objects.all())
    assert len(jobs) == 1, f"one run must record one job, not {len(jobs)}"
    return jobs[0]


def assert_timed(job: ImportJob) -> None:
    assert job.started_at is not None and job.finished_at is not None, "a finished job has its start and end"
    assert job.started_at <= job.finished_at
    assert not job.is_active


# --------------------------------------------------------------------------- import_issues


def test_a_file_import_is_recorded_as_a_done_file_job_with_its_counts(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(n, comments=2) for n in range(1, 4)])

    out, _ = import_issues(path)

    assert out.strip() == "created 3, updated 0, unchanged 0, invalid 0 (comments: created 6, updated 0)"
    job = the_job()
    assert (job.kind, job.status, job.error, job.created_by) == (ImportJob.Kind.FILE, ImportJob.Status.DONE, "", None)
    assert job.parameters == {"filename": "issues.json", "repo": "", "skip_invalid": False}
    assert {k: job.counts[k] for k in ("records", "created", "updated", "unchanged", "invalid")} == {
        "records": 3,
        "created": 3,
        "updated": 0,
        "unchanged": 0,
        "invalid": 0,
    }
    assert job.counts["comments_created"] == 6
    assert (job.progress_done, job.progress_total) == (3, 3)
    assert_timed(job)


def test_each_run_is_a_job_and_a_re_run_counts_unchanged(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(n) for n in range(1, 3)])
    import_issues(path)
    import_issues(path)

    latest = ImportJob.objects.order_by("-id").first()
    assert ImportJob.objects.count() == 2
    assert (latest.status, latest.counts["created"], latest.counts["unchanged"]) == (ImportJob.Status.DONE, 0, 2)


def test_the_user_option_says_who_ran_the_import(tmp_path):
    alice = UserFactory(username="alice")
    path = write_json(tmp_path / "issues.json", [rest_issue(1)])

    import_issues(path, "--user", "alice", "--repo", "deepspeedai/DeepSpeed")

    job = the_job()
    assert job.created_by == alice
    assert job.parameters["repo"] == "deepspeedai/DeepSpeed"


def test_an_unknown_user_is_explained_and_nothing_is_recorded_or_imported(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(1)])

    with pytest.raises(CommandError, match="--user: There is no user 'nobody'"):
        import_issues(path, "--user", "nobody")

    assert not ImportJob.objects.exists()
    assert not Issue.objects.exists()


def test_a_bad_file_fails_the_job_with_the_same_error_naming_file_and_line(tmp_path):
    path = tmp_path / "issues.jsonl"
    path.write_text(
        json.dumps(gh_issue(1)) + "\n{broken\n" + json.dumps({"url": "https://x.org", "title": None}) + "\n"
    )

    with pytest.raises(CommandError) as raised:
        import_issues(path)

    assert str(raised.value) == (
        "2 of 3 records are invalid; nothing was imported. Fix them, or use --skip-invalid to import the valid ones."
    )
    job = the_job()
    assert job.status == ImportJob.Status.FAILED
    assert job.error.startswith(str(raised.value)), "the job says what the command said"
    assert "issues.jsonl line 2: not JSON" in job.error
    assert "issues.jsonl line 3, field 'title': is missing" in job.error
    assert [p["location"] for p in job.problems] == ["issues.jsonl line 2", "issues.jsonl line 3"]
    assert (job.counts["records"], job.counts["invalid"]) == (3, 2)
    assert "created" not in job.counts, "nothing was written"
    assert_timed(job)
    assert not Issue.objects.exists()


def test_a_failed_job_spells_out_the_first_problems_and_keeps_them_all(tmp_path):
    path = write_json(tmp_path / "issues.json", [{"url": f"https://x.org/{n}"} for n in range(30)])

    with pytest.raises(CommandError):
        import_issues(path)

    job = the_job()
    assert job.error.count("field 'title'") == import_services.JOB_ERROR_PROBLEMS
    assert "... and 20 more" in job.error
    assert len(job.problems) == 30


def test_skip_invalid_is_a_done_job_that_lists_the_skipped_records(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(1), {"url": "ftp://x.org/2", "title": "t"}, rest_issue(3)])

    import_issues(path, "--skip-invalid")

    job = the_job()
    assert (job.status, job.error, job.parameters["skip_invalid"]) == (ImportJob.Status.DONE, "", True)
    assert (job.counts["created"], job.counts["invalid"]) == (2, 1)
    assert job.problems[0]["field"] == "url"


def test_an_error_while_writing_fails_the_job_and_still_stops_the_command(tmp_path, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(import_services, "issues_upsert", broken)
    path = write_json(tmp_path / "issues.json", [rest_issue(1)])

    with pytest.raises(RuntimeError, match="disk full"):
        import_issues(path)

    job = the_job()
    assert (job.status, job.error) == (ImportJob.Status.FAILED, "The import stopped with an error: disk full")
    assert_timed(job)


def test_an_interrupted_import_is_not_left_running(tmp_path, monkeypatch):
    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(import_services, "issues_upsert", interrupted)
    path = write_json(tmp_path / "issues.json", [rest_issue(1)])

    with pytest.raises(KeyboardInterrupt):
        import_issues(path)

    job = the_job()
    assert job.status == ImportJob.Status.FAILED
    assert "interrupted" in job.error


def test_an_unreadable_file_or_bad_option_records_no_job(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        import_issues(tmp_path / "nope.json")
    with pytest.raises(CommandError, match="--repo"):
        import_issues(write_json(tmp_path / "issues.json", [rest_issue(1)]), "--repo", "not a repo")

    assert not ImportJob.objects.exists()


def test_the_imports_page_lists_command_line_imports_with_their_outcome(tmp_path, client_as):
    UserFactory(username="operator")
    import_issues(write_json(tmp_path / "good.json", [rest_issue(1)]), "--user", "operator")
    with pytest.raises(CommandError):
        import_issues(write_json(tmp_path / "bad.json", [{"url": "https://x.org/1"}]))
    good, bad = ImportJob.objects.order_by("id")

    page = client_as("staff").get("/imports/").content.decode()
    detail = client_as("staff").get(f"/imports/{bad.pk}/").content.decode()

    assert f'href="/imports/{good.pk}/"' in page and f'href="/imports/{bad.pk}/"' in page
    assert "good.json" in page and "bad.json" in page
    assert "operator" in page
    assert "job-done" in page and "job-failed" in page
    assert "1 of 1 records are invalid" in detail
    assert "bad.json record 1" in detail


# --------------------------------------------------------------------------- import_github


def test_a_github_import_is_recorded_as_a_done_github_job(github_settings, fake_github):
    seed(fake_github, issues=3, closed=2)
    operator = UserFactory(username="operator")

    out = StringIO()
    call_command("import_github", REPO, "--user", "operator", stdout=out, stderr=StringIO())

    job = the_job()
    assert (job.kind, job.status, job.error, job.created_by) == (
        ImportJob.Kind.GITHUB,
        ImportJob.Status.DONE,
        "",
        operator,
    )
    assert job.parameters["repository"] == REPO
    assert (job.counts["created"], job.counts["updated"], job.counts["unchanged"]) == (5, 0, 0)
    assert f"job #{job.pk}" in out.getvalue()
    assert_timed(job)


def test_a_github_import_without_user_has_nobody(github_settings, fake_github):
    seed(fake_github, issues=1)

    call_command("import_github", REPO, stdout=StringIO(), stderr=StringIO())

    assert the_job().created_by is None


def test_a_failed_github_import_leaves_a_failed_job_with_the_reason(github_settings, fake_github):
    with pytest.raises(CommandError, match="404 Not Found for /repos/nobody/nothing/issues") as raised:
        call_command("import_github", "nobody/nothing", stdout=StringIO(), stderr=StringIO())

    job = the_job()
    assert job.status == ImportJob.Status.FAILED
    assert "404 Not Found for /repos/nobody/nothing/issues" in job.error
    assert f"--resume {job.pk}" in str(raised.value)
    assert_timed(job)


def test_a_github_import_with_an_unknown_user_records_no_job(github_settings, fake_github):
    seed(fake_github, issues=1)

    with pytest.raises(CommandError, match="--user: There is no user 'nobody'"):
        call_command("import_github", REPO, "--user", "nobody", stdout=StringIO(), stderr=StringIO())

    assert not ImportJob.objects.exists()
    assert fake_github.requests == []


# --------------------------------------------------------------------------- import_sheets

MAPS = ("--map", "cause=Cause", "--map", "fix=Fix")


def import_pair(a, b, *extra):
    return run_import(
        "--study", "Bugs pilot", "--raters", f"{a},{b}", "--key", "Link", *MAPS, "--taxonomy", "bugs", *extra
    )


def test_a_sheets_import_is_recorded_as_a_done_sheets_job(bugs_taxonomy, rater_csvs):
    operator = UserFactory(username="operator")
    operator.groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])  # --user runs as them

    import_pair(*rater_csvs, "--user", "operator")

    job = the_job()
    study = Study.objects.get(name="Bugs pilot")
    assert (job.kind, job.status, job.error, job.created_by) == (
        ImportJob.Kind.SHEETS,
        ImportJob.Status.DONE,
        "",
        operator,
    )
    assert job.parameters["filename"] == "alice.csv, bob.csv"
    assert (job.parameters["study"], job.parameters["study_id"], job.parameters["round"]) == ("Bugs pilot", study.pk, 1)
    assert {k: job.counts[k] for k in ("records", "created", "unchanged", "annotations")} == {
        "records": 3,
        "created": 3,
        "unchanged": 0,
        "annotations": 6,
    }
    assert "resolutions" in job.counts
    assert_timed(job)


def test_re_running_a_sheets_import_is_a_done_job_with_everything_unchanged(bugs_taxonomy, rater_csvs):
    import_pair(*rater_csvs)
    out, _ = import_pair(*rater_csvs)

    latest = ImportJob.objects.order_by("-id").first()
    assert "nothing changed" in out
    assert (latest.status, latest.counts["created"], latest.counts["unchanged"]) == (ImportJob.Status.DONE, 0, 3)


def test_a_bad_sheet_fails_the_job_naming_file_and_column(bugs_taxonomy, rater_csvs, tmp_path):
    a, _ = rater_csvs
    carol = tmp_path / "carol.csv"
    carol.write_text("Link,Cause\nhttps://github.com/org/repo/issues/1,crash\n")

    with pytest.raises(CommandError) as raised:
        import_pair(a, carol)

    job = the_job()
    assert job.status == ImportJob.Status.FAILED
    assert job.error == str(raised.value), "the job says what the command said"
    assert "carol.csv, sheet 'carol', field 'Fix': no column 'Fix'" in job.error
    assert any("carol.csv" in p["message"] for p in job.problems)
    assert_timed(job)
    assert not Study.objects.exists()


def test_label_decisions_needed_fail_the_job_and_write_nothing(bugs_taxonomy, tmp_path):
    a = tmp_path / "alice.csv"
    b = tmp_path / "bob.csv"
    a.write_text("Link,Cause,Fix\nhttps://github.com/org/repo/issues/1,crash,fix code\n")
    b.write_text("Link,Cause,Fix\nhttps://github.com/org/repo/issues/1,crashh,fix code\n")

    with pytest.raises(CommandError, match="Nothing was imported"):
        import_pair(a, b, "--add-unknown-labels", "--write-labels", str(tmp_path / "labels.csv"))

    job = the_job()
    assert job.status == ImportJob.Status.FAILED
    assert "look like misspellings" in job.error
    assert not Study.objects.exists()
