"""Reading issue files: record shapes, odd fields, formats and the problems a person must see."""

import json
from datetime import UTC, datetime

import pytest

from annotator.importers.files import detect_format, parse_issue_file, parse_repository_ref
from annotator.importers.records import RepositoryRef
from tests.annotator.importers.file_records import gh_issue, rest_issue


def parse_json(records, **kwargs):
    return parse_issue_file(json.dumps(records).encode(), name="issues.json", **kwargs)


def only_record(records, **kwargs):
    result = parse_json(records, **kwargs)
    assert result.problems == [], result.problems
    assert len(result.records) == 1
    return result.records[0]


# --------------------------------------------------------------------------- record shapes


def test_a_rest_issue_object_maps_to_every_column():
    record = only_record([rest_issue(7, comments=2)])
    assert record.url == "https://github.com/deepspeedai/DeepSpeed/issues/7"
    assert record.repository == RepositoryRef("deepspeedai", "DeepSpeed")
    assert (record.number, record.kind, record.state, record.state_reason) == (7, "issue", "closed", "completed")
    assert record.author == "user7"
    assert record.labels == ["bug", "training"]
    assert record.created == datetime(2023, 3, 1, 10, tzinfo=UTC)
    assert record.closed == datetime(2023, 3, 3, 10, tzinfo=UTC)
    assert record.comment_count == 2
    assert [c.key for c in record.comments] == ["701", "702"]
    assert record.comments[0].author == "helper1"
    assert record.comments[0].url.endswith("#issuecomment-701"), "a comment URL keeps its anchor"


def test_raw_keeps_what_no_column_holds_and_drops_duplicated_text_and_api_links():
    record = only_record([rest_issue(7, comments=1)])
    assert record.raw["reactions"] == {"total_count": 2, "+1": 2}
    assert record.raw["user"] == {"login": "user7", "id": 7}
    for duplicated in ("body", "title", "comment_list", "comments_url", "url", "html_url"):
        assert duplicated not in record.raw


def test_a_gh_cli_object_maps_camel_case_fields_and_embedded_comments():
    record = only_record([gh_issue(3, comments=2)])
    assert record.repository == RepositoryRef("NVIDIA", "Megatron-LM")
    assert (record.number, record.state, record.author) == (3, "open", "octo")
    assert record.created == datetime(2024, 5, 1, 8, tzinfo=UTC)
    assert record.closed is None
    assert record.comment_count == 2
    assert [(c.key, c.author, c.body) for c in record.comments] == [
        ("IC_kw3_1", "dev1", "Reply 1"),
        ("IC_kw3_2", "dev2", "Reply 2"),
    ]


def test_a_rest_object_without_embedded_comments_leaves_comments_unknown():
    issue = rest_issue(7)
    issue["comments"] = 5
    record = only_record([issue])
    assert record.comment_count == 5
    assert record.comments is None, "None tells the service to keep the stored comments"


def test_a_minimal_record_of_a_stack_overflow_post_is_a_post_without_repository():
    record = only_record([{"url": "https://stackoverflow.com/questions/123/deepspeed-hangs", "title": "Why?"}])
    assert (record.kind, record.repository, record.number) == ("post", None, None)


@pytest.mark.parametrize(
    "extra",
    [
        {"pull_request": {"url": "https://api.github.com/repos/a/b/pulls/9"}},
        {"html_url": "https://github.com/a/b/pull/9"},
    ],
)
def test_pull_requests_are_recognised_by_key_or_url(extra):
    base = {"html_url": "https://github.com/a/b/issues/9", "title": "Fix", "number": 9}
    assert only_record([{**base, **extra}]).kind == "pull"


def test_comments_without_ids_are_keyed_by_position():
    record = only_record([{"url": "https://github.com/a/b/issues/1", "title": "t", "_comments": [{"body": "x"}, {}]}])
    assert [c.key for c in record.comments] == ["pos:1", "pos:2"]


def test_api_urls_become_page_urls_and_github_urls_are_normalised():
    record = only_record([{"url": "http://www.GitHub.com/a/b/issues/4/#top", "title": "t"}])
    assert record.url == "https://github.com/a/b/issues/4"
    record = only_record([{"url": "https://api.github.com/repos/a/b/issues/5", "title": "t"}])
    assert record.url == "https://github.com/a/b/issues/5"


def test_the_repo_option_overrides_the_repository_of_the_url():
    ref = RepositoryRef("hpcaitech", "ColossalAI")
    assert only_record([{"url": "https://example.org/bug/1", "title": "t"}], repository=ref).repository == ref


# --------------------------------------------------------------------------- odd but tolerated


def test_odd_fields_are_tolerated():
    record = only_record(
        [{"html_url": "https://github.com/a/b/issues/2", "title": "t", "body": None, "user": None, "labels": "bug"}]
    )
    assert (record.body, record.author, record.labels) == ("", "", ["bug"])
    assert only_record([{"url": "https://github.com/a/b/issues/2", "title": "t"}]).labels == []
    labels = only_record([{"url": "https://x.org/1", "title": "t", "labels": ["bug", " bug ", "perf"]}]).labels
    assert labels == ["bug", "perf"]


def test_unicode_and_a_one_megabyte_body_survive():
    body = "😀 ZeRO 分布式 训练 — ünïcödé\n" * 40_000
    assert len(body.encode()) > 1_000_000
    record = only_record([{"url": "https://github.com/a/b/issues/3", "title": "日本語のタイトル", "body": body}])
    assert record.body == body
    assert record.title == "日本語のタイトル"


def test_nul_characters_are_removed_because_databases_cannot_store_them():
    record = only_record([{"url": "https://github.com/a/b/issues/3", "title": "t", "body": "a\u0000b"}])
    assert record.body == "ab"


# --------------------------------------------------------------------------- formats


def test_json_lines_and_a_json_array_give_the_same_records():
    records = [gh_issue(1), gh_issue(2)]
    lines = "\n".join(json.dumps(r) for r in records).encode()
    from_lines = parse_issue_file(lines, name="issues.jsonl")
    from_array = parse_json(records)
    assert (from_lines.format, from_array.format) == ("jsonl", "json")
    assert [r.url for r in from_lines.records] == [r.url for r in from_array.records]


def test_csv_rows_with_labels_numbers_dates_and_multiline_bodies():
    text = (
        "URL,Title,Body,State,Labels,Number,Created_at\n"
        'https://github.com/a/b/issues/5,Crash,"line one\nline two",closed,"bug; training, zero",5,2023-01-02\n'
        "https://stackoverflow.com/questions/9,How?,,,,,\n"
    )
    result = parse_issue_file(text.encode(), name="issues.csv")
    assert result.problems == []
    first, second = result.records
    assert (first.number, first.state, first.body) == (5, "closed", "line one\nline two")
    assert first.labels == ["bug", "training", "zero"]
    assert first.created == datetime(2023, 1, 2, tzinfo=UTC)
    assert (second.kind, second.body, second.labels) == ("post", "", [])


def test_csv_problems_name_the_line_the_record_starts_on():
    text = 'url,title,number\nhttps://github.com/a/b/issues/1,"two\nlines",1\nhttps://github.com/a/b/issues/2,ok,two\n'
    result = parse_issue_file(text.encode(), name="issues.csv")
    assert [str(p) for p in result.problems] == ["issues.csv line 4, field 'number': must be a whole number, got 'two'"]


@pytest.mark.parametrize("number", ["²", "#١", "𝟙"])  # digits to str.isdigit; int() refuses "²", reads "١" as 1
def test_a_number_in_non_ascii_digits_is_a_problem_like_any_word(number):
    text = f"url,title,number\nhttps://github.com/a/b/issues/1,ok,{number}\n"
    result = parse_issue_file(text.encode(), name="issues.csv")
    assert [str(p) for p in result.problems] == [
        f"issues.csv line 2, field 'number': must be a whole number, got {number!r}"
    ]


def test_a_csv_without_url_or_title_columns_is_one_clear_problem():
    result = parse_issue_file(b"link,name\nx,y\n", name="issues.csv")
    assert len(result.problems) == 1
    assert "needs 'url' and 'title' columns" in result.problems[0].message


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("data", '[{"a": 1}]', "json"),
        ("data.json", '{"a": 1}\n{"a": 2}\n', "jsonl"),
        ("data.json", '{\n "a": 1\n}\n', "json"),
        ("data.txt", "url,title\n", "csv"),
        ("data.jsonl", "[]", "jsonl"),
    ],
)
def test_the_format_is_detected_by_extension_and_content(name, text, expected):
    assert detect_format(name, text) == expected


def test_a_search_result_page_with_items_is_read_as_its_items():
    result = parse_issue_file(json.dumps({"total_count": 2, "items": [gh_issue(1), gh_issue(2)]}), name="s.json")
    assert len(result.records) == 2


# --------------------------------------------------------------------------- problems


def test_every_problem_of_a_record_is_listed_with_its_field():
    result = parse_json([{"url": "ftp://files.example.org/1", "title": 3, "number": "abc", "created_at": "yesterday"}])
    fields = [p.field for p in result.problems]
    assert fields == ["url", "title", "number", "created_at"]
    assert all(p.location == "issues.json record 1 (line 1)" for p in result.problems)
    assert result.invalid == 1


@pytest.mark.parametrize(
    ("record", "field", "words"),
    [
        ({"title": "t"}, "url", "is missing"),
        ({"url": "https://x.org/1"}, "title", "is missing"),
        ({"url": "https://x.org/1", "title": "  "}, "title", "is empty"),
        ({"url": "javascript:alert(1)", "title": "t"}, "url", "not an http(s) URL"),
        ({"url": "https://x.org/1", "title": "t", "number": 1.5}, "number", "whole number"),
        ({"url": "https://x.org/1", "title": "t", "number": True}, "number", "whole number"),
        ({"url": "https://x.org/1", "title": "t", "created_at": "2023-13-45"}, "created_at", "not a date"),
        ({"url": "https://x.org/1", "title": "t", "createdAt": 1700000000}, "createdAt", "ISO 8601"),
        ({"url": "https://x.org/1", "title": "t", "labels": 5}, "labels", "list of labels"),
        ({"url": "https://x.org/1", "title": "t", "labels": [["x"]]}, "labels[0]", "label name"),
        ({"url": "https://x.org/1", "title": "t", "user": ["x"]}, "user", "object with a login"),
        ({"url": "https://x.org/1", "title": "t", "body": {"x": 1}}, "body", "must be text"),
        ({"url": "https://x.org/1", "title": "t", "state": "wontfix"}, "state", "open or closed"),
        ({"url": "https://x.org/1", "title": "t", "comments": [1]}, "comments[0]", "must be an object"),
        ({"url": "https://x.org/1", "title": "t", "comments": [{"createdAt": "no"}]}, "comments[0].createdAt", "date"),
        ({"url": "https://github.com/a/b/issues/2", "title": "t", "number": 3}, "number", "points at #2"),
        ({"url": "https://x.org/1", "title": "x" * 1001}, "title", "the limit is 1000"),
        ([1, 2], "", "expected an object"),
    ],
)
def test_invalid_records_say_which_field_and_why(record, field, words):
    result = parse_json([record])
    assert result.records == []
    assert [p.field for p in result.problems] == [field]
    assert words in result.problems[0].message


def test_bad_json_lines_are_reported_with_line_and_column_and_the_rest_still_read():
    text = (
        b'{"url": "https://x.org/1", "title": "a"}\n\n'
        b'{"url": "https://x.org/2", "title": }\n'
        b'{"url": "https://x.org/3", "title": "c"}\n'
    )
    result = parse_issue_file(text, name="issues.jsonl")
    assert [r.url for r in result.records] == ["https://x.org/1", "https://x.org/3"]
    assert [str(p) for p in result.problems] == ["issues.jsonl line 3: not JSON: Expecting value (column 37)"]
    assert result.total == 3


def test_a_broken_json_array_names_the_line_and_column():
    text = b'[\n {"url": "https://x.org/1", "title": "a"},\n {"url": "https://x.org/2" "title": "b"}\n]'
    result = parse_issue_file(text, name="issues.json")
    assert len(result.records) == 1
    assert result.problems[0].location == "issues.json line 3"
    assert "line 3, column 28" in result.problems[0].message


def test_a_file_that_is_not_utf8_is_one_problem():
    result = parse_issue_file('[{"url": "https://x.org/1", "title": "é"}]'.encode("latin-1"), name="issues.json")
    assert result.records == []
    assert "not UTF-8" in result.problems[0].message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("deepspeedai/DeepSpeed", RepositoryRef("deepspeedai", "DeepSpeed")),
        ("https://github.com/NVIDIA/Megatron-LM/", RepositoryRef("NVIDIA", "Megatron-LM")),
        ("https://git.example.org/team/tool.git", RepositoryRef("team", "tool", "git.example.org")),
    ],
)
def test_repository_refs_are_read_from_names_and_urls(text, expected):
    assert parse_repository_ref(text) == expected


@pytest.mark.parametrize("text", ["DeepSpeed", "a/b/c", "ftp://x/a/b", "a b/c"])
def test_anything_else_is_not_a_repository(text):
    with pytest.raises(ValueError, match="owner/name"):
        parse_repository_ref(text)


# --------------------------------------------------------------------------- what a database would refuse


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ('{"url": "https://x.org/1", "title": "t", "score": NaN}', "score", "NaN"),
        ('{"url": "https://x.org/1", "title": "t", "reactions": {"x": [1, Infinity]}}', "reactions.x[1]", "Infinity"),
        ('{"url": "https://x.org/1", "title": "t", "big": 1e400}', "big", "1e400"),
        ('{"url": "https://x.org/1", "title": "t", "id": ' + "9" * 5000 + "}", "id", "digits"),
        ('{"url": "https://x.org/1", "title": "t", "number": 99999999999999999999}', "number", "largest number"),
        ('{"url": "https://x.org/1", "title": "t", "number": NaN}', "number", "whole number"),
        ('{"url": "https://x.org/1", "title": "t", "comments": 99999999999999999999}', "comments", "largest number"),
        ('{"url": "https://x.org/1", "title": "t", "comments": -Infinity}', "comments", "a count"),
        ('{"url": "https://x.org/1", "title": "t", "created_at": "0001-01-01T00:00:00+05:00"}', "created_at", "dates"),
        ('{"url": "https://x.org/1", "title": "t", "closedAt": "9999-12-31T23:00:00-05:00"}', "closedAt", "dates"),
        (
            '{"url": "https://x.org/1", "title": "t", "_comments": [{"created_at": "0001-01-01T00:00+01:00"}]}',
            "_comments[0].created_at",
            "dates",
        ),
        ('{"url": "https://x.org/a\\u0000b", "title": "t"}', "url", "not an http(s) URL"),
        ('{"url": "https://x.org/a\\ud800", "title": "t"}', "url", "not an http(s) URL"),
        ('{"url": "https://github.com/' + "o" * 201 + '/b/issues/1", "title": "t"}', "url", "over 200"),
        ('{"url": "https://x.org/1", "title": "t", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}", "", "deep"),
    ],
)
def test_values_a_database_would_refuse_are_problems_of_their_field(text, field, words):
    result = parse_issue_file(text.encode(), name="issues.jsonl")
    assert result.records == []
    assert len(result.problems) == 1, result.problems
    assert result.problems[0].location == "issues.jsonl line 1"
    assert result.problems[0].field == field
    assert words in result.problems[0].message


def test_nul_and_lone_surrogates_in_keys_and_comment_ids_are_cleaned_like_text():
    text = (
        '{"url": "https://x.org/1", "title": "t\\ud800", "k\\u0000ey": {"\\udc00": "v\\u0000"},'
        ' "_comments": [{"id": "c\\u0000", "body": "b"}]}'
    )
    record = only_record_of(text)
    assert record.title == "t?"
    assert record.raw == {"key": {"?": "v"}}
    assert record.comments[0].key == "c"


def only_record_of(text: str):
    result = parse_issue_file(text.encode(), name="issues.jsonl")
    assert result.problems == [], result.problems
    return result.records[0]
