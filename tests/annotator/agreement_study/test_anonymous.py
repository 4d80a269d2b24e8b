"""Anonymous adjudication: the agreement report names raters R1, R2 for everyone but the study's owner."""

import csv
import io

import pytest
from rest_framework.test import APIClient

from annotator.models import Study
from tests.annotator.agreement_study.factories import grant_study

pytestmark = pytest.mark.django_db


def get(users, role: str, study, **params):
    client = APIClient()
    client.force_authenticate(users[role])
    return client.get(f"/api/v1/studies/{study.pk}/agreement/", params)


@pytest.fixture
def anonymous_study(users):
    study = grant_study(users)
    Study.objects.filter(pk=study.pk).update(anonymous_adjudication=True)
    return Study.objects.get(pk=study.pk)


def test_the_adjudicator_sees_pseudonyms_everywhere(users, anonymous_study):
    response = get(users, "adjudicator", anonymous_study)
    assert response.status_code == 200
    body = response.json()
    assert body["anonymous"] is True
    assert [r["name"] for r in body["raters"]] == ["R1", "R2"] and {r["id"] for r in body["raters"]} == {None}
    assert [p["key"] for p in body["pairs"]] == ["R1-R2"]
    assert "rater_a" not in response.content.decode() and "rater_b" not in response.content.decode()
    rows = list(csv.DictReader(io.StringIO(get(users, "adjudicator", anonymous_study, format="csv").content.decode())))
    assert {r["pair"] for r in rows if r["view"] == "pair"} == {"R1 / R2"}


def test_the_pair_filter_takes_pseudonyms(users, anonymous_study):
    body = get(users, "adjudicator", anonymous_study, pair="R1-R2").json()
    assert body["filters"]["pair"] == "R1-R2"
    symptom = next(d for d in body["dimensions"] if d["key"] == "symptom")
    assert symptom["summary"]["kappa"] == pytest.approx(0.4)


def test_the_owner_sees_names(users, anonymous_study):
    body = get(users, "owner", anonymous_study).json()
    assert "anonymous" not in body
    assert [r["name"] for r in body["raters"]] == ["rater_a", "rater_b"]


def test_the_page_shows_pseudonyms_to_the_adjudicator_and_names_to_the_owner(users, anonymous_study, client_as):
    url = f"/studies/{anonymous_study.pk}/agreement/"
    adjudicator = client_as("adjudicator").get(url).content.decode()
    assert "R1 / R2" in adjudicator and "rater_a" not in adjudicator
    owner = client_as("owner").get(url).content.decode()
    assert "rater_a / rater_b" in owner


def test_without_anonymous_adjudication_the_adjudicator_sees_names(users):
    study = grant_study(users)
    assert [r["name"] for r in get(users, "adjudicator", study).json()["raters"]] == ["rater_a", "rater_b"]
