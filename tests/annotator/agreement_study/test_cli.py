"""python manage.py agreement: table, JSON and CSV; by level and by pair; clear errors."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.annotator.agreement_study.factories import assignments_of, grant_study, study_with_issues, write_label
from tests.annotator.studies.factories import make_taxonomy

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("agreement", *args, stdout=out)
    return out.getvalue()


def test_table_shows_each_dimension_with_kappa(users):
    study = grant_study(users)
    text = run("--study", study.name)
    symptom = next(line for line in text.splitlines() if line.startswith("overall") and "Symptom" in line)
    assert "0.400" in symptom and " 50 " in symptom and "fair" in symptom
    assert "Independent (first submissions)" in text and "After discussion" in text
    assert "against the final label: not available yet" in text


def test_table_says_what_each_figure_left_out(users):
    taxonomy = make_taxonomy()
    study = study_with_issues(users, n_issues=3, taxonomy=taxonomy, dimensions=[taxonomy["dims"]["symptom"]])
    symptom = study.taxonomy_fixture["cats"]["symptom"]
    pairs = zip(assignments_of(study, users["rater_a"]), assignments_of(study, users["rater_b"]), strict=True)
    for i, (a, b) in enumerate(pairs):
        write_label(a, [symptom[i]])
        if i == 2:  # rater B proposes a category the taxonomy lacks instead of choosing one
            write_label(b, [], proposals={"symptom": "NCCL watchdog timeout"})
        else:
            write_label(b, [symptom[i]])
    text = run("--study", study.name)
    row = next(line for line in text.splitlines() if line.startswith("overall") and "Symptom" in line)
    assert row.split()[3:5] == ["2", "1"]  # n, n left out
    assert "Symptom: 1 a new category proposed instead of a choice" in text


def test_json_by_slug(users):
    study = grant_study(users)
    body = json.loads(run("--study", study.slug, "--format", "json"))
    assert body["study"] == study.name
    assert next(d for d in body["dimensions"] if d["key"] == "symptom")["summary"]["kappa"] == pytest.approx(0.4)


def test_csv_by_level_and_pair(users):
    study = grant_study(users)
    text = run("--study", str(study.pk), "--format", "csv", "--by-level", "--by-pair")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {"overall", "level", "pair"} <= {r["view"] for r in rows}
    levels = [r["level"] for r in rows if r["view"] == "level" and r["dimension"] == "Symptom"]
    assert levels == ["1: level 1", "2: leaf"]


def test_round_filter_and_errors(users):
    study = grant_study(users)
    assert "round 1" in run("--study", study.name, "--round", "1")
    with pytest.raises(CommandError, match="no round 3"):
        run("--study", study.name, "--round", "3")
    with pytest.raises(CommandError, match="No study named 'nope'"):
        run("--study", "nope")
    with pytest.raises(CommandError, match="No study named '²'"):  # a digit to str.isdigit, not an id
        run("--study", "²")
