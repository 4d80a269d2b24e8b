"""GET /api/v1/studies/{id}/agreement/: roles, JSON, CSV (formula-safe), filters, schema."""

import csv
import io

import pytest
from rest_framework.test import APIClient

from annotator.models import Study
from tests.annotator.agreement_study.factories import assignments_of, grant_study, write_label

pytestmark = pytest.mark.django_db


def api(users, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(users[role])
    return client


def url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/agreement/"


@pytest.mark.parametrize(
    ("role", "status"),
    [("anonymous", 401), ("rater_a", 403), ("rater_b", 403), ("adjudicator", 200), ("owner", 200), ("staff", 200)],
)
def test_roles_on_a_blind_study(users, role, status):
    study = grant_study(users)
    response = api(users, role).get(url(study))
    assert response.status_code == status


def test_an_outsider_gets_404(users, outsider):
    study = grant_study(users)
    client = APIClient()
    client.force_authenticate(outsider)
    assert client.get(url(study)).status_code == 404


def test_the_json_report_has_kappa_n_and_interval(users):
    study = grant_study(users)
    body = api(users, "owner").get(url(study)).json()
    assert body["access"] == "full" and body["study"]["id"] == study.pk
    symptom = next(d for d in body["dimensions"] if d["key"] == "symptom")
    assert symptom["summary"]["n"] == 50 and symptom["summary"]["kappa"] == pytest.approx(0.4)
    assert symptom["confusion"]["categories"] == ["symptom leaf 0", "symptom leaf 1"]
    assert body["gate"]["passed"] is False  # the study is in its pilot


def test_a_rater_of_a_published_study_gets_the_summary_only(users):
    study = grant_study(users)
    Study.objects.filter(pk=study.pk).update(phase="published")
    body = api(users, "rater_a").get(url(study)).json()
    assert body["access"] == "summary"
    symptom = next(d for d in body["dimensions"] if d["key"] == "symptom")
    assert "confusion" not in symptom and "per_category" not in symptom and "per_pair" not in symptom
    assert symptom["summary"]["kappa"] == pytest.approx(0.4)


def test_filters_round_pair_and_level(users):
    study = grant_study(users)
    pair = f"{users['rater_a'].pk}-{users['rater_b'].pk}"
    body = api(users, "owner").get(url(study), {"round": 1, "pair": pair, "level": 1}).json()
    assert body["filters"] == {"round": 1, "pair": pair, "level": 1}
    symptom = next(d for d in body["dimensions"] if d["key"] == "symptom")
    assert symptom["detail_level"] == 1 and symptom["summary"]["percent"] == 1.0  # one group at the top


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"pair": "x"}, "pair"),
        ({"pair": ""}, "pair"),
        ({"level": "deep"}, "level"),
        ({"bootstrap": "maybe"}, "bootstrap"),
        # digits to str.isdigit, not numbers: int() refuses "²" and reads "١" (Arabic-Indic one) as 1
        ({"round": "²"}, "round"),
        ({"level": "١"}, "level"),
        ({"pair": "²-3"}, "pair"),
        ({"pair": "R1-R١"}, "pair"),
    ],
)
def test_bad_filters_are_400_with_the_field(users, params, field):
    study = grant_study(users)
    response = api(users, "owner").get(url(study), params)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("params", "field"), [({"round": 4}, "round"), ({"pair": "R9-R8"}, "pair"), ({"pair": "900001-900002"}, "pair")]
)
def test_filters_naming_no_round_or_pair_of_the_study_are_404_with_the_field(users, params, field):
    study = grant_study(users)
    response = api(users, "owner").get(url(study), params)
    assert response.status_code == 404
    assert field in response.json()["error"]["fields"]


def test_csv_has_a_row_per_view_and_is_formula_safe(users):
    study = grant_study(users)
    users["rater_a"].display_name = '=HYPERLINK("http://127.0.0.1/x")'
    users["rater_a"].save()
    write_label(assignments_of(study, users["rater_a"])[0], [study.taxonomy_fixture["cats"]["symptom"][0]])
    response = api(users, "owner").get(url(study), {"format": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0])[:4] == ["basis", "view", "dimension", "level"]
    overall = next(r for r in rows if r["view"] == "overall" and r["dimension"] == "Symptom")
    assert overall["basis"] == "independent (first submissions)"
    assert overall["n"] == "50" and float(overall["kappa"]) == pytest.approx(0.4)
    names = [r["pair"] for r in rows if r["view"] == "pair"]
    assert names and all(name.startswith("'=") for name in names)  # quoted: text, not a formula


def test_csv_for_a_rater_leaves_out_the_pairs(users):
    study = grant_study(users)
    Study.objects.filter(pk=study.pk).update(phase="published")
    rows = list(csv.DictReader(io.StringIO(api(users, "rater_a").get(url(study), {"format": "csv"}).content.decode())))
    assert rows and not [r for r in rows if r["view"] == "pair"]


def test_the_schema_documents_the_endpoint_without_warnings(users, capsys):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/studies/{id}/agreement/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"round", "pair", "level", "format"}
    assert set(operation["responses"]["200"]["content"]) == {"application/json", "text/csv"}
    captured = capsys.readouterr()
    assert "agreement" not in (captured.err + captured.out).lower()
