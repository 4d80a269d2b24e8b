"""Bootstrap intervals where asked for (API, page, command), seeded so a figure is the same every time;
an interval of zero width is "not estimable", never "1.00 – 1.00"."""

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from tests.annotator.agreement_study.factories import (
    assignments_of,
    grant_study,
    make_taxonomy,
    study_with_issues,
    write_label,
)

pytestmark = pytest.mark.django_db


def _summary(users, study, **params):
    client = APIClient()
    client.force_authenticate(users["owner"])
    body = client.get(f"/api/v1/studies/{study.pk}/agreement/", params).json()
    return next(d for d in body["dimensions"] if d["key"] == "symptom")["summary"]


def test_the_api_adds_seeded_bootstrap_intervals_when_asked(users):
    study = grant_study(users)
    assert "bootstrap" not in _summary(users, study) or not _summary(users, study)["bootstrap"]
    first = _summary(users, study, bootstrap="1")["bootstrap"]
    kappa = next(b for b in first if b["measure"] == "kappa")
    assert kappa["estimate"] == pytest.approx(0.4)
    assert -1 <= kappa["low"] < 0.4 < kappa["high"] <= 1
    assert (kappa["n_resamples"], kappa["seed"], kappa["level"]) == (1000, 0, 0.95)
    assert {b["measure"] for b in first} >= {"kappa", "alpha", "ac1"}
    assert _summary(users, study, bootstrap="1")["bootstrap"] == first, "seeded: the same interval every time"


def test_the_page_shows_the_bootstrap_table_when_ticked(client_as, users):
    study = grant_study(users)
    page = client_as("owner").get(f"/studies/{study.pk}/agreement/", {"bootstrap": "1"}).content.decode()
    assert 'data-testid="bootstrap"' in page and "seeded percentile bootstrap" in page
    plain = client_as("owner").get(f"/studies/{study.pk}/agreement/").content.decode()
    assert 'data-testid="bootstrap"' not in plain


def test_the_command_prints_bootstrap_intervals(users):
    study = grant_study(users)
    out = io.StringIO()
    call_command("agreement", "--study", study.name, "--bootstrap", "--format", "table", stdout=out)
    assert "bootstrap" in out.getvalue()


def test_all_agree_is_not_estimable_on_the_page_and_in_the_api(client_as, users):
    taxonomy = make_taxonomy()
    study = study_with_issues(users, n_issues=6, taxonomy=taxonomy)
    cats = study.taxonomy_fixture["cats"]["symptom"]
    for rater in ("rater_a", "rater_b"):
        for i, assignment in enumerate(assignments_of(study, users[rater])):
            write_label(assignment, [cats[i % 2]])
    summary = _summary(users, study)
    assert summary["ci_estimable"] is False and summary["low"] is None and summary["high"] is None
    assert summary["ci_note"].startswith("not estimable")
    page = client_as("owner").get(f"/studies/{study.pk}/agreement/").content.decode()
    assert 'data-testid="not-estimable"' in page
    assert "1.00 – 1.00" not in page.replace("shown as “1.00 – 1.00”", ""), "only the explanation may quote it"
