"""The final dataset's fast path (lines.py) writes exactly what the readable row generators (rows.py) define."""

import csv
import io
import json
import tracemalloc

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from annotator.exports import csv_rows, json_document_chunks, jsonl_lines
from annotator.models import Annotation, Issue, Repository, Resolution, StudyIssue
from annotator.selectors.resolution_values import ProposedLabel
from annotator.services.exports import export_context, final_dataset_header, final_dataset_records, final_dataset_rows
from annotator.services.exports.lines import (
    BoundedCache,
    csv_cell,
    csv_text,
    final_dataset_csv_lines,
    final_dataset_jsonl_lines,
    json_text,
)
from annotator.services.exports.streams import _json_document, blocks
from annotator.services.resolutions.values import resolutions_bulk_create
from tests.annotator.final_labels import resolution_make

# Text that needs quoting, escaping or formula protection, in every position a cell can hold it.
TRICKY = [
    "=cmd()",
    "+1",
    "-3",
    "@sum",
    " =indented",
    "\u200b=hidden",
    "\uff1dfullwidth",
    "comma, inside",
    'a "quoted" word',
    "two\nlines",
    "carriage\rreturn",
    "",
    "plain",
    "ünïcödé 漢字 ✓",
    "tab\tinside",
    "\tleading tab",
    "back\\slash",
    "\x01control",
]


def _reference_csv(context) -> str:
    return "".join(csv_rows(final_dataset_header(context), final_dataset_rows(context)))


def _reference_jsonl(context) -> str:
    return "".join(jsonl_lines(final_dataset_records(context)))


def _tricky_study(world, users) -> None:
    """Resolved issues whose every varying field is awkward, and categories whose names are too."""
    symptom, cause, stage = world.cats["symptom"], world.cats["root_cause"], world.cats["stage"]
    symptom[0].name = 'Hang, "silent"'
    symptom[0].save(update_fields=["name"])
    cause[1].name = "=HYPERLINK()"
    cause[1].save(update_fields=["name"])
    no_owner = Repository.objects.create(owner="", name="solo")
    proposer = Annotation.objects.filter(assignment__study_issue__study=world.study).order_by("pk").first()
    values = [
        {"symptom": [symptom[0].pk], "root_cause": [cause[1].pk]},
        {"symptom": [symptom[1].pk, symptom[0].pk]},  # a dimension absent
        {},  # excluded: no labels at all
        # settled on a rater's proposal: its text, marked, in every label column
        {"symptom": [ProposedLabel('=hang, "silent"\nproposal', proposer.pk)], "root_cause": [cause[0].pk]},
        {"stage": [stage[0].pk, stage[1].pk]},
        {"root_cause": []},  # decided empty
    ]
    methods = [{}, {"symptom": "unanimous", "root_cause": "adjudicated"}, {"excluded": "negotiated", "x": 1.5}]
    now = timezone.now()
    for i, title in enumerate(TRICKY):
        issue = Issue.objects.create(
            url=f"https://example.org/tricky/{i}",
            title=title or "untitled",
            repository=[world.repo, no_owner, None][i % 3],
            number=None if i % 4 == 0 else 70_000 + i,
        )
        study_issue = StudyIssue.objects.create(study=world.study, issue=issue, round=world.round, position=500 + i)
        resolution_make(
            study_issue=study_issue,
            values={} if i % 5 == 0 else values[i % len(values)],
            methods=methods[i % len(methods)],
            status=Resolution.Status.RESOLVED,
            method=Resolution.Method.ADJUDICATED,
            disagreement_reason=TRICKY[(i + 3) % len(TRICKY)][:40],
            excluded=i % 5 == 0,
            note=f"{TRICKY[(i + 5) % len(TRICKY)]} as rater_b said, with {users['rater_a'].username}",
            decided_at=now,
        )


@pytest.mark.parametrize("pseudonymous", [False, True])
def test_csv_is_the_same_text_as_the_row_generators(world, users, pseudonymous):
    _tricky_study(world, users)
    context = export_context(study=world.study, pseudonymous=pseudonymous)
    fast = "".join(final_dataset_csv_lines(context))
    assert fast == _reference_csv(context)
    rows = list(csv.DictReader(io.StringIO(fast)))
    assert len(rows) == 6 + len(TRICKY)
    assert "'=cmd()" in {row["title"] for row in rows}


@pytest.mark.parametrize("pseudonymous", [False, True])
def test_json_lines_are_the_same_text_as_the_records(world, users, pseudonymous):
    _tricky_study(world, users)
    context = export_context(study=world.study, pseudonymous=pseudonymous)
    fast = "".join(final_dataset_jsonl_lines(context))
    assert fast == _reference_jsonl(context)
    records = [json.loads(line) for line in fast.splitlines()]
    assert len(records) == 6 + len(TRICKY)
    assert ("rater_b" in fast) is not pseudonymous


def test_the_json_document_is_the_same_text_as_the_records(world, users):
    _tricky_study(world, users)
    context = export_context(study=world.study, pseudonymous=True)
    head = {"study": 'S, "quoted"', "exported_at": timezone.now(), "dimensions": ["symptom"]}
    texts = (json.dumps(r, ensure_ascii=False) for r in final_dataset_records(context))
    fast = "".join(_json_document(head, "records", texts))
    assert fast == "".join(json_document_chunks(head, "records", final_dataset_records(context)))
    assert len(json.loads(fast)["records"]) == 6 + len(TRICKY)


def test_an_empty_study_has_only_the_header(world):
    Resolution.objects.filter(study_issue__study=world.study).update(status=Resolution.Status.PENDING)
    context = export_context(study=world.study, pseudonymous=False)
    assert "".join(final_dataset_csv_lines(context)) == _reference_csv(context)
    assert "".join(final_dataset_jsonl_lines(context)) == ""


@given(st.text(max_size=12))
def test_a_csv_cell_is_quoted_exactly_as_the_csv_writer_does(text):
    line = "".join(csv_rows(None, [[text, text, 7]]))
    assert f"{csv_cell(text)},{csv_text(text)},7\r\n" == line


@given(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12)))
def test_a_json_value_is_written_as_json_dumps_does(value):
    assert json_text(value) == json.dumps(value, ensure_ascii=False)


def test_the_cache_never_holds_more_than_its_limit():
    built = []
    cache = BoundedCache(lambda key: built.append(key) or key * 2, limit=3)
    assert [cache(k) for k in [1, 2, 1, 3, 4, 5, 1]] == [2, 4, 2, 6, 8, 10, 2]
    assert len(cache.values) <= 3
    assert built == [1, 2, 3, 4, 5, 1]  # 1 was dropped when the cache started over


def _bulk_resolved(world, n: int) -> None:
    now = timezone.now()
    issues = Issue.objects.bulk_create(
        Issue(url=f"https://example.org/many/{i}", title=f"issue {i}", repository=world.repo) for i in range(n)
    )
    study_issues = StudyIssue.objects.bulk_create(
        StudyIssue(study=world.study, issue=issue, round=world.round, position=1000 + i)
        for i, issue in enumerate(issues)
    )
    cats = world.cats
    resolutions_bulk_create(
        [
            (
                Resolution(
                    study_issue=si,
                    methods={"root_cause": "unanimous", "symptom": "unanimous"},
                    status="resolved",
                    method="unanimous",
                    decided_at=now,
                ),
                {"symptom": [cats["symptom"][i % 3].pk], "root_cause": [cats["root_cause"][i % 2].pk]},
            )
            for i, si in enumerate(study_issues)
        ],
        version_id=world.study.taxonomy_version_id,
    )


def test_the_fast_path_keeps_memory_flat_and_reads_once(world, django_assert_num_queries):
    _bulk_resolved(world, 20_000)
    context = export_context(study=world.study, pseudonymous=True)
    tracemalloc.start()
    with django_assert_num_queries(1):
        count = sum(1 for _ in final_dataset_csv_lines(context))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 20_000 + 6 + 1
    assert peak < 8 * 1024 * 1024, f"streaming {count} rows peaked at {peak / 2**20:.1f} MiB"


def test_closing_the_stream_closes_the_rows():
    closed = []

    def rows():
        try:
            while True:
                yield "x" * 100
        finally:
            closed.append(True)

    stream = blocks(rows(), size=1000)
    assert len(next(stream)) >= 1000
    stream.close()
    assert closed == [True]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_rows_stream_inside_a_transaction_that_ends_with_the_download(users):
    """No WITH HOLD cursor (which runs the whole query before the first row): the rows are read in a transaction,
    and a download cut short ends it."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    from tests.annotator.worlds import labelled_world

    world = labelled_world(users)
    _bulk_resolved(world, 5_000)
    context = export_context(study=world.study, pseudonymous=False)
    assert connection.get_autocommit()
    stream = blocks(final_dataset_csv_lines(context), size=1000)
    next(stream)
    assert connection.in_atomic_block
    stream.close()
    assert not connection.in_atomic_block
    assert connection.get_autocommit()
    whole = b"".join(blocks(final_dataset_csv_lines(context))).decode()
    assert whole.count("\r\n") == 5_000 + 6 + 1
    assert not connection.in_atomic_block
