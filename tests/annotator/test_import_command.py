"""manage.py import_issues: formats, summary line, validation with rollback, --skip-invalid, --repo."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotator.models import Comment, Issue, Repository
from tests.annotator.importers.file_records import gh_issue, rest_issue, write_csv, write_json, write_jsonl

pytestmark = pytest.mark.django_db


def run(path, *args):
    out, err = _Buffer(), _Buffer()
    call_command("import_issues", str(path), "--no-progress", *args, stdout=out, stderr=err)
    return out.text, err.text


class _Buffer:
    def __init__(self):
        self.text = ""

    def write(self, value):
        self.text += value

    def flush(self):
        pass


def counts():
    return Issue.objects.count(), Comment.objects.count(), Repository.objects.count()


def test_a_json_array_is_imported_with_a_summary_line(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(n, comments=3) for n in range(1, 4)])
    out, _ = run(path)
    assert out.strip() == "created 3, updated 0, unchanged 0, invalid 0 (comments: created 9, updated 0)"


def test_re_running_the_command_reports_everything_unchanged(tmp_path):
    path = write_jsonl(tmp_path / "issues.jsonl", [gh_issue(n) for n in range(1, 4)])
    run(path)
    before = list(Issue.objects.values_list("id", "updated_at"))
    out, _ = run(path)
    assert out.strip() == "created 0, updated 0, unchanged 3, invalid 0 (comments: created 0, updated 0)"
    assert list(Issue.objects.values_list("id", "updated_at")) == before


def test_a_csv_file_is_imported(tmp_path):
    rows = [
        {
            "url": "https://github.com/hpcaitech/ColossalAI/issues/11",
            "title": "OOM",
            "labels": "bug;gemini",
            "state": "open",
        },
        {"url": "https://stackoverflow.com/questions/77", "title": "How to shard?", "labels": "", "state": ""},
    ]
    out, _ = run(write_csv(tmp_path / "issues.csv", rows))
    assert out.startswith("created 2,")
    assert Issue.objects.get(number=11).labels == ["bug", "gemini"]


def test_the_repo_option_assigns_records_to_a_repository(tmp_path):
    path = write_json(tmp_path / "issues.json", [{"url": "https://forum.example.org/t/1", "title": "t", "number": 1}])
    run(path, "--repo", "hpcaitech/ColossalAI")
    assert Issue.objects.get().repository.full_name == "hpcaitech/ColossalAI"


def test_invalid_records_are_all_listed_and_nothing_is_written(tmp_path):
    records = [rest_issue(1), {"url": "https://x.org/2"}, rest_issue(3, created_at="not a date")]
    path = write_json(tmp_path / "issues.json", records)
    before = counts()
    with pytest.raises(CommandError, match="2 of 3 records are invalid; nothing was imported") as raised:
        run(path)
    assert counts() == before, "a file with invalid records must write nothing"
    assert "--skip-invalid" in str(raised.value)


def test_problems_are_printed_with_line_and_field(tmp_path, capsys):
    path = tmp_path / "issues.jsonl"
    path.write_text(
        json.dumps(gh_issue(1)) + "\n{broken\n" + json.dumps({"url": "https://x.org", "title": None}) + "\n"
    )
    err = _Buffer()
    with pytest.raises(CommandError):
        call_command("import_issues", str(path), "--no-progress", stderr=err, stdout=_Buffer())
    assert "issues.jsonl line 2: not JSON" in err.text
    assert "issues.jsonl line 3, field 'title': is missing" in err.text


def test_at_most_fifty_problems_are_printed_then_how_many_more(tmp_path):
    path = write_json(tmp_path / "issues.json", [{"url": f"https://x.org/{n}"} for n in range(80)])
    err = _Buffer()
    with pytest.raises(CommandError):
        call_command("import_issues", str(path), "--no-progress", stderr=err, stdout=_Buffer())
    assert err.text.count("field 'title'") == 50
    assert "... and 30 more" in err.text


def test_skip_invalid_imports_the_valid_records_and_lists_the_rest(tmp_path):
    records = [rest_issue(1), {"url": "ftp://x.org/2", "title": "t"}, rest_issue(3)]
    path = write_json(tmp_path / "issues.json", records)
    out, err = run(path, "--skip-invalid")
    assert out.strip() == "created 2, updated 0, unchanged 0, invalid 1 (comments: created 0, updated 0)"
    assert "issues.json record 2 (line " in err
    assert "field 'url': is not an http(s) URL" in err
    assert set(Issue.objects.values_list("number", flat=True)) == {1, 3}


def test_a_change_in_the_file_updates_on_the_next_run(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(1, comments=1)])
    run(path)
    write_json(path, [rest_issue(1, comments=1, state="open")])
    out, _ = run(path)
    assert out.startswith("created 0, updated 1, unchanged 0")
    assert Issue.objects.get().state == "open"


def test_old_repository_urls_are_canonicalised(tmp_path):
    path = write_json(tmp_path / "issues.json", [rest_issue(5, repo="microsoft/DeepSpeed")])
    run(path)
    assert Issue.objects.get().url == "https://github.com/deepspeedai/DeepSpeed/issues/5"


@pytest.mark.parametrize(("args", "message"), [(["--repo", "not a repo"], "--repo"), (["--batch-size", "0"], "batch")])
def test_bad_options_are_explained(tmp_path, args, message):
    path = write_json(tmp_path / "issues.json", [rest_issue(1)])
    with pytest.raises(CommandError, match=message):
        run(path, *args)
    assert Issue.objects.count() == 0


def test_a_missing_file_is_explained(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        run(tmp_path / "nope.json")


def test_the_progress_bar_goes_to_stderr(tmp_path, capsys):
    path = write_json(tmp_path / "issues.json", [rest_issue(1)])
    call_command("import_issues", str(path), stdout=_Buffer())
    assert "importing" in capsys.readouterr().err
