"""A file import is all or nothing: values a database would refuse are problems named by line and field,
a failure part-way leaves nothing visible, and --repo never moves an issue between repositories."""

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import OperationalError

from annotator.models import Comment, ImportJob, Issue, Repository
from annotator.services import imports as import_services
from annotator.services.imports import file_import_create
from tests.annotator.importers.file_records import rest_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# Each passes the checks a record had before, and PostgreSQL or SQLite (or Python on the way) refuses it.
REFUSED = {
    "nan": ('"score": NaN', "score"),
    "infinity in a nested value": ('"reactions": {"x": [1, Infinity]}', "reactions.x[1]"),
    "a count beyond bigint": ('"comments": 99999999999999999999', "comments"),
    "a number beyond integer": ('"number": 3000000000, "html_url": "https://forum.example.org/t/1"', "number"),
    "year 1 with an offset": ('"created_at": "0001-01-01T00:00:00+05:00"', "created_at"),
    "NUL in the URL": ('"html_url": "https://forum.example.org/a\\u0000b"', "html_url"),
}


def lines_with(bad: str, *, n: int = 2500, at: int = 2201) -> str:
    lines = [json.dumps(rest_issue(i, comments=1)) for i in range(1, n + 1)]
    lines[at - 1] = lines[at - 1][:-1] + ", " + bad + "}"
    return "\n".join(lines) + "\n"


def import_issues(path, *args):
    out, err = StringIO(), StringIO()
    call_command("import_issues", str(path), "--no-progress", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def stored():
    return Issue.objects.count(), Comment.objects.count(), sorted(Repository.objects.values_list("owner", "name"))


@pytest.fixture
def nothing_written():
    before = stored()
    return lambda: stored() == before


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_value_the_database_refuses_rejects_the_whole_file_naming_line_and_field(tmp_path, case, nothing_written):
    bad, field = REFUSED[case]
    path = tmp_path / "issues.jsonl"
    path.write_text(lines_with(bad), encoding="utf-8")

    with pytest.raises(CommandError, match="1 of 2500 records are invalid; nothing was imported"):
        import_issues(path)

    assert nothing_written(), "not the first 2,000 records: nothing"
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert (job.counts["records"], job.counts["invalid"]) == (2500, 1)
    assert [(p["location"], p["field"]) for p in job.problems] == [("issues.jsonl line 2201", field)]
    assert f"issues.jsonl line 2201, field '{field}'" in job.error
    for sql in ("INSERT", "UPDATE", "SELECT", "DETAIL", "psycopg", "sqlite"):
        assert sql not in job.error


def test_skip_invalid_imports_everything_else(tmp_path):
    path = tmp_path / "issues.jsonl"
    path.write_text(lines_with(REFUSED["nan"][0], n=30, at=12), encoding="utf-8")

    out, err = import_issues(path, "--skip-invalid")

    assert out.startswith("created 29, ")
    assert "issues.jsonl line 12, field 'score'" in err
    assert Issue.objects.count() == 29


class FailOnCall:
    """Let the first writes through, then fail as a dropped connection or a Ctrl-C would."""

    def __init__(self, real, *, on: int, error: BaseException):
        self.real, self.on, self.error, self.calls = real, on, error, 0

    def __call__(self, **kwargs):
        self.calls += 1
        if self.calls == self.on:
            raise self.error
        return self.real(**kwargs)


@pytest.mark.parametrize(
    "error",
    [
        OperationalError('server closed the connection unexpectedly\nINSERT INTO "annotator_issue" ...'),
        KeyboardInterrupt(),
    ],
)
def test_a_failure_in_the_third_batch_leaves_nothing_of_the_first_two(tmp_path, monkeypatch, error, nothing_written):
    failing = FailOnCall(import_services.issues_upsert, on=3, error=error)
    monkeypatch.setattr(import_services, "issues_upsert", failing)
    path = tmp_path / "issues.jsonl"
    path.write_text("".join(json.dumps(rest_issue(i, comments=1)) + "\n" for i in range(1, 2501)), encoding="utf-8")

    with pytest.raises((CommandError, type(error))):
        import_issues(path)

    assert failing.calls == 3
    assert nothing_written()
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert "INSERT" not in job.error
    assert "nothing" in job.error or "interrupted" in job.error


def test_an_upload_with_a_refused_value_writes_nothing_and_lists_line_and_field(
    settings, tmp_path, django_capture_on_commit_callbacks, nothing_written
):
    settings.MEDIA_ROOT = tmp_path / "media"
    staff = UserFactory(is_staff=True)
    upload = SimpleUploadedFile("issues.jsonl", lines_with(REFUSED["year 1 with an offset"][0]).encode())

    with django_capture_on_commit_callbacks(execute=True):
        job = file_import_create(user=staff, upload=upload)

    job.refresh_from_db()
    assert nothing_written()
    assert job.status == ImportJob.Status.FAILED
    assert (job.counts["records"], job.counts["invalid"]) == (2500, 1)
    assert job.problems[0]["location"] == "issues.jsonl line 2201"
    assert job.problems[0]["field"] == "created_at"


# --------------------------------------------------------------------------- --repo never moves an issue


def write(tmp_path, records, name="issues.json"):
    path = tmp_path / name
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


def test_repo_does_not_move_a_stored_issue_of_another_repository(tmp_path):
    import_issues(write(tmp_path, [rest_issue(1)]))  # deepspeedai/DeepSpeed#1
    stored = Issue.objects.get()

    with pytest.raises(CommandError, match="1 of 2 records are invalid; nothing was imported"):
        other = {"url": "https://forum.example.org/t/2", "title": "t"}
        import_issues(write(tmp_path, [other, rest_issue(1)]), "--repo", "hpcaitech/ColossalAI")

    stored.refresh_from_db()
    assert stored.repository.full_name == "deepspeedai/DeepSpeed"
    assert Issue.objects.count() == 1
    problem = ImportJob.objects.order_by("-id").first().problems
    assert [p["location"] for p in problem] == ["issues.json record 2 (line 6)"]
    assert problem[0]["field"] == "url"
    assert "https://github.com/deepspeedai/DeepSpeed/issues/1" in problem[0]["message"]
    assert "deepspeedai/DeepSpeed" in problem[0]["message"]


def test_repo_does_not_move_a_stored_post_of_another_repository(tmp_path):
    post = {"url": "https://forum.example.org/t/7", "title": "Hangs", "number": 7}
    import_issues(write(tmp_path, [post]), "--repo", "deepspeedai/DeepSpeed")

    with pytest.raises(CommandError):
        import_issues(write(tmp_path, [post]), "--repo", "hpcaitech/ColossalAI")

    assert Issue.objects.get().repository.full_name == "deepspeedai/DeepSpeed"
    assert "is stored as an issue of deepspeedai/DeepSpeed" in ImportJob.objects.order_by("-id").first().error


def test_repo_is_refused_for_an_issue_whose_url_names_another_repository(tmp_path, nothing_written):
    with pytest.raises(CommandError):
        import_issues(write(tmp_path, [rest_issue(3)], name="new.json"), "--repo", "hpcaitech/ColossalAI")

    assert nothing_written()
    job = ImportJob.objects.get()
    assert "new.json record 1 (line 2), field 'url'" in job.error
    assert "is an issue of deepspeedai/DeepSpeed (its URL says so)" in job.error


def test_repo_under_the_current_name_of_a_renamed_repository_is_no_move(tmp_path):
    import_issues(write(tmp_path, [rest_issue(1)]))
    repository = Repository.objects.get(owner="deepspeedai", name="DeepSpeed")
    repository.aliases.get_or_create(host="github.com", owner="microsoft", name="DeepSpeed")

    out, _ = import_issues(
        write(tmp_path, [rest_issue(1, repo="microsoft/DeepSpeed")]), "--repo", "deepspeedai/DeepSpeed"
    )

    assert out.startswith("created 0, ") and "invalid 0" in out
    assert Issue.objects.get().repository == repository


def test_skip_invalid_leaves_the_stored_issue_where_it_is_and_imports_the_rest(tmp_path):
    import_issues(write(tmp_path, [rest_issue(1)]))

    out, err = import_issues(
        write(tmp_path, [{"url": "https://forum.example.org/t/2", "title": "t"}, rest_issue(1)]),
        "--repo",
        "hpcaitech/ColossalAI",
        "--skip-invalid",
    )

    assert out.startswith("created 1, updated 0, unchanged 0, invalid 1")
    assert "https://github.com/deepspeedai/DeepSpeed/issues/1" in err
    assert Issue.objects.get(number=1).repository.full_name == "deepspeedai/DeepSpeed"


def test_without_repo_a_stored_post_keeps_its_repository(tmp_path):
    post = {"url": "https://forum.example.org/t/7", "title": "Hangs", "number": 7}
    import_issues(write(tmp_path, [post]), "--repo", "deepspeedai/DeepSpeed")

    with pytest.raises(CommandError):
        import_issues(write(tmp_path, [post]))

    assert Issue.objects.get().repository.full_name == "deepspeedai/DeepSpeed"
    assert "import it with --repo deepspeedai/DeepSpeed" in ImportJob.objects.order_by("-id").first().error


def test_long_issues_are_written_in_smaller_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(import_services, "BATCH_CHARS", 38_000)
    counting = FailOnCall(import_services.issues_upsert, on=0, error=RuntimeError())
    monkeypatch.setattr(import_services, "issues_upsert", counting)
    path = write(tmp_path, [rest_issue(n, body="log line\n" * 2_000) for n in range(1, 11)])

    out, _ = import_issues(path)

    assert out.startswith("created 10,")
    assert counting.calls == 5, "two issues of ~19,000 characters fill a batch of 38,000"
