"""Before discussion means first submissions, forever: a send-back and a converged resubmit change the
"after discussion" figures only, never the independent ones or the pilot gate (API, page and command)."""

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotator.models import Annotation, Assignment, Resolution
from tests.annotator.worlds import build_world

pytestmark = pytest.mark.django_db

# Six issues; the raters agree on root cause throughout and differ on the symptom of the last issue only:
# kappa = (5/6 - 1/3) / (2/3) = 0.75, below the threshold 0.8. Agreeing after discussion would make it 1.
SYMPTOM_A = [0, 1, 2, 0, 1, 2]
SYMPTOM_B = [0, 1, 2, 0, 1, 1]
ROOT_CAUSE = [0, 1, 2, 0, 1, 2]


def api_as(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def submit(world, users, role: str, index: int, symptom: int, root_cause: int):
    assignment = world.assignments[role][index]
    annotation = Annotation.objects.get(assignment=assignment)
    values = {"symptom": [world.cats["symptom"][symptom].pk], "root_cause": [world.cats["root_cause"][root_cause].pk]}
    response = api_as(users[role]).post(
        f"/api/v1/annotations/{annotation.pk}/submit/", {"values": values, "version": annotation.version}, format="json"
    )
    assert response.status_code == 200, response.content


@pytest.fixture
def disputed_pilot(users):
    """The pilot study of six issues, both raters submitted; issue 5 waits for adjudication."""
    world = build_world(users, n_issues=6)
    study = world.study
    study.dimensions.set([world.dims["symptom"], world.dims["root_cause"]])
    for i in range(6):
        submit(world, users, "rater_a", i, SYMPTOM_A[i], ROOT_CAUSE[i])
        submit(world, users, "rater_b", i, SYMPTOM_B[i], ROOT_CAUSE[i])
    return world


def agreement(users, world, role: str = "owner") -> dict:
    response = api_as(users[role]).get(f"/api/v1/studies/{world.study.pk}/agreement/")
    assert response.status_code == 200, response.content
    return response.json()


def symptom(report: dict) -> dict:
    return next(d for d in report["dimensions"] if d["key"] == "symptom")


def converge(world, users, client_as):
    """The adjudicator sends issue 5 back (page); both raters resubmit the same symptom (API)."""
    study_issue = world.assignments["rater_a"][5].study_issue
    resolution = Resolution.objects.get(study_issue=study_issue)
    assert resolution.status == Resolution.Status.PENDING
    response = client_as("adjudicator").post(
        f"/studies/{world.study.pk}/adjudication/{study_issue.pk}/send-back/",
        {"version": resolution.version, "note": "Is it a hang or a crash? Read the log again."},
    )
    assert response.status_code == 302
    assert Resolution.objects.get(study_issue=study_issue).status == Resolution.Status.SENT_BACK
    submit(world, users, "rater_a", 5, 2, 2)
    submit(world, users, "rater_b", 5, 2, 2)
    assert Assignment.objects.filter(study_issue=study_issue, status=Assignment.Status.SUBMITTED).count() == 2


def test_a_converged_send_back_leaves_the_independent_figures_and_the_gate_unchanged(users, disputed_pilot, client_as):
    world = disputed_pilot
    before = agreement(users, world)
    assert before["before_label"] == "Independent (first submissions)"
    assert symptom(before)["summary"]["kappa"] == pytest.approx(0.75)
    assert before["gate"]["passed"] is False

    converge(world, users, client_as)
    after = agreement(users, world)
    for key in ("kappa", "low", "high", "percent", "alpha", "ac1", "n"):
        assert symptom(after)["summary"][key] == symptom(before)["summary"][key], key
    assert symptom(after)["confusion"] == symptom(before)["confusion"]
    assert after["gate"]["passed"] is False
    assert [d["value"] for d in after["gate"]["dimensions"]] == [d["value"] for d in before["gate"]["dimensions"]]
    # After discussion, the revised labels agree everywhere, and each rater matches the final labels.
    revised = symptom(after)["after"]["revised"]
    assert revised["percent"] == pytest.approx(1.0)
    assert symptom(before)["after"]["revised"]["percent"] == pytest.approx(5 / 6)


def test_the_page_names_each_basis_and_keeps_the_gate_closed(users, disputed_pilot, client_as):
    world = disputed_pilot
    converge(world, users, client_as)
    page = client_as("owner").get(f"/studies/{world.study.pk}/agreement/").content.decode()
    assert "Independent (first submissions)" in page
    assert "After discussion" in page
    gate = page[page.index('data-testid="pilot-gate"') :]
    assert 'data-testid="gate-symptom"' in gate
    symptom_row = gate[gate.index('data-testid="gate-symptom"') :]
    assert "0.75" in symptom_row[:400] and ">no<" in symptom_row[:600]


def test_the_command_reports_first_submissions_after_a_converged_send_back(users, disputed_pilot, client_as):
    world = disputed_pilot
    converge(world, users, client_as)
    out = io.StringIO()
    call_command("agreement", "--study", str(world.study.pk), "--format", "csv", stdout=out)
    lines = out.getvalue().splitlines()
    overall = next(line for line in lines if line.startswith("independent (first submissions),overall,Symptom"))
    assert ",0.75," in overall


def test_counts_resolved_and_pending_issues_apart(users, disputed_pilot):
    report = agreement(users, disputed_pilot)
    assert (report["issues"], report["resolved"], report["pending"]) == (6, 5, 1)
    # Against the final label: only the five issues that have one.
    rows = symptom(report)["after"]["rows"]
    assert [row["n"] for row in rows] == [5, 5]
    assert all(row["left_out"] == {"no_final_label": 1} for row in rows)


def unanimous_on_dashboard(client_as, world) -> str:
    page = client_as("owner").get(f"/studies/{world.study.pk}/").content.decode()
    start = page.index('data-testid="independent-unanimous">') + len('data-testid="independent-unanimous">')
    return page[start : page.index("<", start)]


def test_the_dashboard_counts_unanimous_issues_from_first_submissions(users, disputed_pilot, client_as):
    world = disputed_pilot
    assert unanimous_on_dashboard(client_as, world) == "5"
    converge(world, users, client_as)
    assert unanimous_on_dashboard(client_as, world) == "5"  # the discussed issue was not unanimous
