"""python manage.py agreement: table, JSON and CSV; by level and by pair; clear errors."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.annotator.agreement_study.factories import grant_study

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
    assert "After discussion: not available yet." in text


def test_json_by_slug(users):
    study = grant_study(users)
    body = json.loads(run("--study", study.slug, "--format", "json"))
    assert body["study"] == study.name
    assert next(d for d in body["dimensions"] if d["key"] == "symptom")["summary"]["kappa"] == pytest.approx(0.4)


def test_csv_by_level_and_pair(users):
    study = grant_study(users)
    rows = list(csv.reader(io.StringIO(run("--study", str(study.pk), "--format", "csv", "--by-level", "--by-pair"))))
    views = {r[0] for r in rows[1:]}
    assert {"overall", "level", "pair"} <= views
    assert [r[2] for r in rows if r[0] == "level" and r[1] == "Symptom"] == ["1: level 1", "2: leaf"]


def test_round_filter_and_errors(users):
    study = grant_study(users)
    assert "round 1" in run("--study", study.name, "--round", "1")
    with pytest.raises(CommandError, match="no round 3"):
        run("--study", study.name, "--round", "3")
    with pytest.raises(CommandError, match="No study named 'nope'"):
        run("--study", "nope")
