"""In a real browser: a disagreement reaches the queue, the adjudicator settles it with the keyboard,
the history shows it and the API returns the final label."""

import pytest

from annotator.models import Resolution
from tests.annotator.worlds import labels, make_world, submit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_an_adjudicator_resolves_a_disagreement_with_the_keyboard(live_server, new_context, login, screenshot, users):

    world = make_world(users, n_issues=2)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    study_issue_id = world.issue_ids[0]
    rater_2_choice = world.cats["root_cause"][1]

    page = login(new_context(), "adjudicator")
    page.goto(f"{live_server.url}/studies/{world.study.pk}/adjudication/")
    rows = page.get_by_test_id("queue-row")
    assert rows.count() == 1
    assert page.get_by_test_id("progress-pending").inner_text() == "1"

    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/adjudication/{study_issue_id}/")
    disputed = page.get_by_test_id("dim-root_cause")
    assert "differs" in disputed.get_attribute("class")
    screenshot(page, "adjudication-page")

    # The disputed dimension has the focus on arrival: take rater 2's label, give the reason, record.
    page.keyboard.press("2")
    assert page.get_by_test_id("final-root_cause").input_value() == str(rater_2_choice.pk)
    page.get_by_test_id("reason").select_option("guideline_gap")
    page.get_by_test_id("note").fill("The guidelines do not say where NCCL timeouts belong.")
    page.get_by_test_id("dim-root_cause").focus()
    screenshot(page, "adjudication-page-decided")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"**/studies/{world.study.pk}/adjudication/")
    assert page.get_by_test_id("queue-empty").is_visible()
    assert page.get_by_test_id("progress-resolved").inner_text() == "1"
    screenshot(page, "adjudication-queue-done")

    page.goto(f"{live_server.url}/studies/{world.study.pk}/issues/{study_issue_id}/history/")
    history = page.get_by_test_id("history").inner_text()
    assert "Recorded" in history and "adjudicator" in history and rater_2_choice.name in history

    response = page.request.get(f"{live_server.url}/api/v1/study-issues/{study_issue_id}/resolution/")
    assert response.status == 200
    body = response.json()
    assert body["status"] == "resolved"
    assert body["values"]["root_cause"] == [rater_2_choice.pk]
    assert body["methods"]["root_cause"] == "adjudicated"
    assert body["disagreement_reason"] == "guideline_gap"
    assert Resolution.objects.get(study_issue_id=study_issue_id).decided_by == users["adjudicator"]
