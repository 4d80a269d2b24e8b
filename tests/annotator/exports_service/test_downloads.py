"""Streamed downloads: the response type, formula-safe CSV, pseudonyms, and flat memory."""

import csv
import io
import json
import tracemalloc

import pytest
from django.http import StreamingHttpResponse
from django.utils import timezone

from annotator.exports import csv_rows
from annotator.models import Issue, Resolution, Study, StudyIssue
from annotator.services.exports import (
    export_context,
    final_dataset_header,
    final_dataset_rows,
    rater_labels_rows,
)
from annotator.services.resolutions.values import resolutions_bulk_create
from tests.annotator.worlds import FORMULA_TITLE


def _body(response) -> str:
    return b"".join(response.streaming_content).decode("utf-8")


def url(world, what: str, fmt: str) -> str:
    return f"/studies/{world.study.pk}/exports/{what}.{fmt}"


@pytest.mark.parametrize(
    ("what", "fmt"), [("final", "csv"), ("final", "jsonl"), ("labels", "json"), ("taxonomy", "md")]
)
def test_downloads_are_streamed(world, client_for, what, fmt):
    response = client_for("owner").get(url(world, what, fmt))
    assert response.status_code == 200
    assert isinstance(response, StreamingHttpResponse)
    assert "attachment" in response["Content-Disposition"]


def test_a_formula_title_comes_out_quoted_in_the_csv(world, client_for):
    rows = list(csv.DictReader(io.StringIO(_body(client_for("owner").get(url(world, "final", "csv"))))))
    titles = [row["title"] for row in rows]
    assert "'" + FORMULA_TITLE in titles
    assert FORMULA_TITLE not in titles


def test_final_dataset_has_one_row_per_resolved_issue_with_codes_names_and_paths(world, client_for):
    rows = list(csv.DictReader(io.StringIO(_body(client_for("owner").get(url(world, "final", "csv"))))))
    assert len(rows) == 6
    first = rows[0]
    assert first["symptom_code"] == "symptom-0"
    assert first["symptom_path"] == "symptom group > symptom leaf 0"
    assert {"method", "disagreement_reason", "excluded", "repository", "number"} <= set(first)
    assert {row["method"] for row in rows} == {"unanimous", "adjudicated"}


def test_multi_valued_labels_are_joined_with_semicolons(world, client_for):
    rows = list(csv.DictReader(io.StringIO(_body(client_for("owner").get(url(world, "labels", "csv"))))))
    assert "stage-0; stage-1" in {row["stage_code"] for row in rows}


def test_owner_sees_rater_names_and_a_published_study_shows_pseudonyms(world, client_for):
    records = [json.loads(line) for line in _body(client_for("owner").get(url(world, "labels", "jsonl"))).splitlines()]
    assert {r["rater"] for r in records} == {"rater_a", "rater_b"}
    Study.objects.filter(pk=world.study.pk).update(phase=Study.Phase.PUBLISHED)
    body = _body(client_for("outsider").get(url(world, "labels", "jsonl")))
    records = [json.loads(line) for line in body.splitlines()]
    assert {r["rater"] for r in records} == {"R1", "R2"}
    assert "rater_b" not in body  # names in notes are replaced too
    assert "agree with R2" in {r["note"] for r in records}


def test_json_download_is_one_valid_document(world, client_for):
    document = json.loads(_body(client_for("owner").get(url(world, "final", "json"))))
    assert len(document["records"]) == 6
    assert document["dimensions"] == ["symptom", "root_cause", "stage"]


def test_unknown_formats_are_404(world, client_for):
    assert client_for("owner").get(url(world, "final", "xlsx")).status_code == 404
    assert client_for("owner").get(url(world, "secrets", "csv")).status_code == 404


def _bulk_resolved(world, n: int) -> None:
    """n more resolved issues in the world's study, written in bulk."""
    now = timezone.now()
    issues = Issue.objects.bulk_create(
        Issue(url=f"https://example.org/bulk/{i}", title=f"bulk issue {i}", repository=world.repo) for i in range(n)
    )
    study_issues = StudyIssue.objects.bulk_create(
        StudyIssue(study=world.study, issue=issue, round=world.round, position=1000 + i)
        for i, issue in enumerate(issues)
    )
    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][1].pk]}
    resolutions_bulk_create(
        [
            (
                Resolution(
                    study_issue=si,
                    methods=dict.fromkeys(values, "unanimous"),
                    status="resolved",
                    method="unanimous",
                    decided_at=now,
                ),
                values,
            )
            for si in study_issues
        ],
        version_id=world.study.taxonomy_version_id,
    )


def test_row_generation_keeps_memory_flat(world):
    """Streaming 20,000 CSV rows stays under a small memory bound (nothing holds the whole study)."""
    _bulk_resolved(world, 20_000)
    context = export_context(study=world.study, pseudonymous=True)
    tracemalloc.start()
    count = 0
    for _line in csv_rows(final_dataset_header(context), final_dataset_rows(context)):
        count += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 20_000 + 6 + 1
    assert peak < 8 * 1024 * 1024, f"streaming {count} rows peaked at {peak / 2**20:.1f} MiB"


def test_per_rater_rows_cost_a_bounded_number_of_queries(world, django_assert_max_num_queries):
    context = export_context(study=world.study, pseudonymous=False)
    # Per chunk of 2,000: the annotations, their labels, their first submissions and those labels.
    with django_assert_max_num_queries(4):
        rows = list(rater_labels_rows(context))
    assert len(rows) == 12
