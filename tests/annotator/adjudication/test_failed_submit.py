"""A refused decision on the adjudication page keeps every choice made and marks the field at fault."""

import re

import pytest

from annotator.models import Resolution
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labels, submit

pytestmark = pytest.mark.django_db


def page_url(world, study_issue) -> str:
    return f"/studies/{world.study.pk}/adjudication/{study_issue.pk}/"


def selected(body: str, name: str) -> list[str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', body, re.S)
    assert select, f"no select {name} on the page"
    return re.findall(r'<option value="([^"]*)"[^>]*\sselected>', select.group(1))


def snapshot(study_issue) -> tuple:
    resolution = Resolution.objects.get(study_issue=study_issue)
    return resolution.version, resolution.status, values_of(resolution), resolution.note, resolution.disagreement_reason


def test_a_decision_without_a_reason_keeps_every_choice_and_marks_the_reason(world, disputed, client_for):
    before = snapshot(disputed)
    chosen_cause, changed_symptom = world.cats["root_cause"][1], world.cats["symptom"][2]
    response = client_for("adjudicator").post(
        page_url(world, disputed),
        {
            "version": 1,
            "dim_root_cause": chosen_cause.pk,
            "dim_symptom": changed_symptom.pk,
            "dim_stage": [""],
            "method": "negotiated",
            "reason": "",
            "note": "kept after the refusal",
        },
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert selected(body, "dim_root_cause") == [str(chosen_cause.pk)]
    assert selected(body, "dim_symptom") == [str(changed_symptom.pk)], "a changed agreed dimension stays changed"
    assert re.search(r'value="negotiated" data-testid="method-negotiated" checked', body)
    assert "kept after the refusal</textarea>" in body
    reason = re.search(r'<select name="reason"[^>]*>', body).group(0)
    assert 'required aria-required="true"' in reason
    assert 'aria-invalid="true" aria-describedby="decision-error"' in reason
    assert re.search(r'id="decision-error" data-testid="decision-error">Say why the raters differed', body)
    assert snapshot(disputed) == before, "nothing is recorded on a refusal"


def test_a_missing_final_category_marks_its_dimension(world, disputed, client_for):
    response = client_for("adjudicator").post(
        page_url(world, disputed),
        {"version": 1, "dim_root_cause": "", "method": "adjudicated", "reason": "other", "note": "n"},
    )
    assert response.status_code == 400
    body = response.content.decode()
    section = re.search(r'<section class="([^"]*)"[^>]*data-testid="dim-root_cause"', body).group(1)
    assert "is-invalid" in section
    assert selected(body, "reason") == ["other"]
    assert 'data-testid="decision-error"' not in body  # the message is about the categories, not the reason


def test_the_reason_is_required_only_where_the_raters_differed(world, users, disputed, client_for):
    body = client_for("adjudicator").get(page_url(world, disputed)).content.decode()
    assert 'data-testid="reason-required">required<' in body
    submit(world, users, "rater_a", 1, **labels(world, 0, 0))
    submit(world, users, "rater_b", 1, **labels(world, 0, 0))
    agreed = Resolution.objects.get(study_issue_id=world.issue_ids[1]).study_issue
    body = client_for("owner").get(page_url(world, agreed)).content.decode()
    assert 'data-testid="reason-required"' not in body
    assert "aria-required" not in re.search(r'<select name="reason"[^>]*>', body).group(0)
