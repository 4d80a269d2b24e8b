"""Files are read as streams: a record at a time, whatever the chunk boundaries, with memory bounded."""

import io
import json

import pytest

from annotator.importers.files import ParseResult, parse_issue_file, read_issue_file, shapes
from tests.annotator.importers.file_records import gh_issue, rest_issue

RECORDS = [rest_issue(n, comments=2, body="ünïcödé 分布式 " * n) for n in range(1, 6)] + [gh_issue(9)]
BROKEN = [rest_issue(1), {"url": "https://x.org/2", "title": 5}, rest_issue(3, created_at="no")]


def files() -> dict[str, bytes]:
    return {
        "pretty.json": json.dumps(RECORDS, indent=2, ensure_ascii=False).encode(),
        "compact.json": json.dumps(RECORDS).encode(),
        "broken.json": json.dumps(BROKEN, indent=1).encode(),
        "search.json": json.dumps({"total_count": 2, "items": RECORDS[:2]}).encode(),
        "lines.jsonl": "\r\n".join(json.dumps(r, ensure_ascii=False) for r in RECORDS + BROKEN).encode(),
        "rows.csv": (
            b'url,title,body\nhttps://github.com/a/b/issues/1,"one, two","multi\nline"\n'
            b"https://github.com/a/b/issues/2,ok,\nhttps://github.com/a/b/issues/3,,x\n"
        ),
        "old-mac.csv": b"url,title\rhttps://x.org/1,a\rhttps://x.org/2,b\r",
        "bad-array.json": b'[\n {"url": "https://x.org/1", "title": "a"},\n {"url": "https://x.org/2" "title": "b"}\n]',
    }


def summary(result: ParseResult):
    return [r.url for r in result.records], [str(p) for p in result.problems], result.total, result.invalid


@pytest.mark.parametrize("name", list(files()))
def test_tiny_chunks_read_the_same_records_and_problems_as_one_chunk(monkeypatch, name):
    data = files()[name]
    whole = summary(parse_issue_file(data, name=name))
    assert whole[0] or whole[1], "the file says something"
    monkeypatch.setattr(shapes, "CHUNK_BYTES", 7)
    assert summary(parse_issue_file(data, name=name)) == whole


def test_the_old_mac_csv_is_read_row_by_row():
    urls, problems, total, _ = summary(parse_issue_file(files()["old-mac.csv"], name="old-mac.csv"))
    assert (urls, problems, total) == (["https://x.org/1", "https://x.org/2"], [], 2)


def test_a_broken_array_names_line_and_column_with_small_chunks(monkeypatch):
    monkeypatch.setattr(shapes, "CHUNK_BYTES", 5)
    result = parse_issue_file(files()["bad-array.json"], name="issues.json")
    assert [str(p) for p in result.problems] == [
        "issues.json line 3: not JSON: Expecting ',' delimiter (line 3, column 28); "
        "records after record 1 could not be read"
    ]


def test_a_record_larger_than_the_limit_stops_the_file_with_a_clear_problem(monkeypatch):
    monkeypatch.setattr(shapes, "MAX_RECORD_CHARS", 100_000)
    monkeypatch.setattr(shapes, "CHUNK_BYTES", 1000)
    big = {"url": "https://x.org/2", "title": "t", "body": "x" * 300_000}
    for name, data in (
        ("big.json", json.dumps([rest_issue(1), big]).encode()),
        ("big.jsonl", (json.dumps(rest_issue(1)) + "\n" + json.dumps(big) + "\n").encode()),
    ):
        result = parse_issue_file(data, name=name)
        assert len(result.records) == 1, name
        assert "longer than" in result.problems[-1].message, name


def test_records_are_yielded_before_the_file_is_read_to_its_end():
    data = "".join(json.dumps(rest_issue(n)) + "\n" for n in range(1, 2001)).encode()
    stream = io.BytesIO(data)
    reader = read_issue_file(stream, name="issues.jsonl", result=ParseResult([], [], 0, ""))
    next(reader)
    assert stream.tell() < len(data), "the first record came after reading only the first chunk"


def test_a_file_that_is_not_utf8_names_the_line():
    data = b'{"url": "https://x.org/1", "title": "a"}\n{"url": "https://x.org/2", "title": "\xe9"}\n'
    result = parse_issue_file(data, name="issues.jsonl")
    assert [str(p) for p in result.problems] == [
        "issues.jsonl line 2: the file is not UTF-8 text; save it as UTF-8 and try again"
    ]


def test_problems_beyond_the_kept_ones_are_counted():
    data = json.dumps([{"url": f"https://x.org/{n}"} for n in range(shapes.KEPT_PROBLEMS + 10)]).encode()
    result = parse_issue_file(data, name="issues.json")
    assert len(result.problems) == shapes.KEPT_PROBLEMS
    assert (result.problem_count, result.invalid) == (shapes.KEPT_PROBLEMS + 10, shapes.KEPT_PROBLEMS + 10)
