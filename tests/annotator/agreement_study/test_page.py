"""The agreement page: who sees what, the figures it shows, the heatmap cells, and the pilot gate form."""

import re

import pytest

from annotator.models import PhaseChange, Study
from tests.annotator.agreement_study.factories import grant_study

pytestmark = pytest.mark.django_db


def url(study: Study, suffix: str = "") -> str:
    return f"/studies/{study.pk}/agreement/{suffix}"


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("anonymous", 302),
        ("outsider", 404),
        ("rater_a", 403),
        ("rater_b", 403),
        ("adjudicator", 200),
        ("owner", 200),
        ("staff", 200),
    ],
)
def test_who_sees_the_page_of_a_blind_study(users, client_for, role, status):
    study = grant_study(users)
    response = client_for(role).get(url(study))
    assert response.status_code == status
    if status == 403:
        assert b"hidden from raters while the study is blind" in response.content


@pytest.mark.parametrize("change", [{"phase": "published"}, {"blind": False}])
def test_raters_see_the_summary_once_published_or_when_not_blind(users, client_for, change):
    study = grant_study(users)
    Study.objects.filter(pk=study.pk).update(**change)
    response = client_for("rater_a").get(url(study))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="agreement-summary"' in html
    assert 'data-testid="heatmap-symptom"' not in html  # the confusion matrix stays with owners


@pytest.mark.parametrize(("role", "status"), [("rater_a", 403), ("outsider", 404), ("owner", 200)])
def test_the_issues_of_a_cell_are_for_owners_adjudicators_and_staff(users, client_for, role, status):
    study = grant_study(users)
    Study.objects.filter(pk=study.pk).update(phase="published")
    response = client_for(role).get(url(study, "cell/") + "?dimension=symptom&row=0&col=1")
    assert response.status_code == status


def test_the_page_shows_kappa_interval_and_n(users, client_for):
    study = grant_study(users)
    html = client_for("owner").get(url(study)).content.decode()
    row = re.search(r'<tr data-testid="summary-symptom">(.*?)</tr>', html, re.S).group(1)
    assert ">50<" in row and "70.0%" in row and "0.40" in row and "0.15 – 0.65" in row and "fair" in row
    assert "Not available yet (no issue has a final label)" in html


def test_the_heatmap_is_shaded_by_classes_with_no_inline_style_or_script(users, client_for):
    study = grant_study(users)
    response = client_for("owner").get(url(study))
    html = response.content.decode()
    heatmap = re.search(r'<table class="heatmap" data-testid="heatmap-symptom">(.*?)</table>', html, re.S).group(1)
    assert re.findall(r'class="heat-(\d)', heatmap) == ["9", "3", "5", "7"]
    assert "style=" not in html and "<style" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)  # only external scripts
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_cell_lists_its_issues_with_links(users, client_for):
    study = grant_study(users)
    response = client_for("owner").get(url(study, "cell/") + "?dimension=symptom&row=0&col=1&partial=1")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count("<li>") == 5 and "/issues/" in html
    assert "symptom leaf 0 × symptom leaf 1" in html


def test_a_cell_outside_the_matrix_is_404(users, client_for):
    study = grant_study(users)
    assert client_for("owner").get(url(study, "cell/") + "?dimension=symptom&row=5&col=0").status_code == 404
    assert client_for("owner").get(url(study, "cell/") + "?dimension=nope&row=0&col=0").status_code == 404
    for hostile in ("²", "١", "-1", "", "1" * 40):  # '²', Arabic-Indic one: never read as a number
        answer = client_for("owner").get(url(study, "cell/") + f"?dimension=symptom&row={hostile}&col=1")
        assert answer.status_code == 404


def test_a_bad_filter_redirects_with_a_message(users, client_for):
    study = grant_study(users)
    response = client_for("owner").get(url(study) + "?round=9", follow=True)
    assert response.redirect_chain[-1][0] == url(study)
    assert "no round 9" in response.content.decode()


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"round": "x"}, "must be a whole number"),
        ({"round": "²"}, "must be a whole number"),  # a digit to str.isdigit, not to int()
        ({"level": "١"}, "must be a whole number"),  # Arabic-Indic one: int() would read 1
        ({"pair": "²-1"}, "A rater pair is written as two rater ids"),
        ({"pair": "R²-R1"}, "A rater pair is written as two rater ids"),
    ],
)
def test_a_malformed_filter_redirects_with_a_message(users, client_for, query, message):
    study = grant_study(users)
    response = client_for("owner").get(url(study), query, follow=True)
    assert response.redirect_chain[-1][0] == url(study)
    assert message in response.content.decode()


def test_the_owner_sees_the_gate_and_the_override_form(users, client_for):
    study = grant_study(users, kind="pilot", only_symptom=True)
    html = client_for("owner").get(url(study)).content.decode()
    assert 'data-testid="pilot-gate"' in html and 'name="override_reason"' in html
    adjudicator = client_for("adjudicator").get(url(study)).content.decode()
    assert 'data-testid="pilot-gate"' in adjudicator and 'name="override_reason"' not in adjudicator


def test_the_override_form_moves_the_study_on_and_keeps_the_reason(users, client_for):
    study = grant_study(users, kind="pilot", only_symptom=True)
    response = client_for("owner").post(url(study, "leave-pilot/"), {"override_reason": "Deadline; revised guide."})
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.phase == "labelling"
    assert PhaseChange.objects.get().reason == "Deadline; revised guide."
    html = client_for("owner").get(url(study)).content.decode()
    assert "Deadline; revised guide." in html


def test_leaving_below_the_threshold_without_a_reason_changes_nothing(users, client_for):
    study = grant_study(users, kind="pilot", only_symptom=True)
    response = client_for("owner").post(url(study, "leave-pilot/"), {}, follow=True)
    assert "below the threshold 0.80 on: Symptom" in response.content.decode()
    study.refresh_from_db()
    assert study.phase == "pilot" and not PhaseChange.objects.exists()


@pytest.mark.parametrize(("role", "status"), [("rater_a", 403), ("adjudicator", 403), ("outsider", 404)])
def test_only_the_owner_may_post_the_gate(users, client_for, role, status):
    study = grant_study(users, kind="pilot", only_symptom=True)
    Study.objects.filter(pk=study.pk).update(blind=False)
    response = client_for(role).post(url(study, "leave-pilot/"), {"override_reason": "x"})
    assert response.status_code == status
    study.refresh_from_db()
    assert study.phase == "pilot" and not PhaseChange.objects.exists()


def test_the_gate_form_needs_csrf(users):
    from django.test import Client

    study = grant_study(users, kind="pilot", only_symptom=True)
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["owner"])
    assert client.post(url(study, "leave-pilot/"), {"override_reason": "x"}).status_code == 403
    study.refresh_from_db()
    assert study.phase == "pilot"


def test_the_study_page_links_to_the_agreement_page(users, client_for):
    study = grant_study(users)
    assert url(study).encode() in client_for("owner").get(f"/studies/{study.pk}/").content
