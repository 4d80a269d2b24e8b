"""In a real browser: a decision without a reason is refused, and every choice the adjudicator made stays."""

import pytest
from playwright.sync_api import expect

from annotator.models import Resolution
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labels, make_world, submit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_refused_decision_keeps_the_choices_and_marks_the_reason(live_server, new_context, login, users):
    world = make_world(users, n_issues=2)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    study_issue_id = world.issue_ids[0]
    rater_2_choice, other_symptom = world.cats["root_cause"][1], world.cats["symptom"][2]
    url = f"{live_server.url}/studies/{world.study.pk}/adjudication/{study_issue_id}/"

    page = login(new_context(), "adjudicator")
    page.goto(url)
    expect(page.get_by_test_id("reason-required")).to_have_text("required")
    page.keyboard.press("2")  # the disputed root cause has the focus: take rater 2's label
    page.get_by_test_id("final-symptom").select_option(str(other_symptom.pk))
    page.get_by_test_id("method-negotiated").check()
    page.get_by_test_id("note").fill("Settled in the weekly meeting.")
    page.get_by_test_id("dim-root_cause").focus()

    # The browser itself refuses first: the reason is a required field.
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(300)
    assert page.url == url
    assert page.evaluate("document.getElementById('id_reason').matches(':invalid')")
    assert Resolution.objects.get(study_issue_id=study_issue_id).status == "pending"

    # A browser that does not check (or any client posting the form) meets the server's refusal: the page
    # comes back with every choice kept and the reason marked, with the focus on it.
    page.evaluate("document.getElementById('adj-form').noValidate = true")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("decision-error")).to_contain_text("Say why the raters differed")
    reason = page.get_by_test_id("reason")
    expect(reason).to_have_attribute("aria-invalid", "true")
    expect(reason).to_be_focused()
    assert page.get_by_test_id("final-root_cause").input_value() == str(rater_2_choice.pk)
    assert page.get_by_test_id("final-symptom").input_value() == str(other_symptom.pk)
    expect(page.get_by_test_id("method-negotiated")).to_be_checked()
    expect(page.get_by_test_id("note")).to_have_value("Settled in the weekly meeting.")
    assert Resolution.objects.get(study_issue_id=study_issue_id).status == "pending"

    # Giving the reason is all that is left to do.
    reason.select_option("guideline_gap")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"**/studies/{world.study.pk}/adjudication/")
    resolution = Resolution.objects.get(study_issue_id=study_issue_id)
    assert resolution.status == "resolved" and resolution.disagreement_reason == "guideline_gap"
    assert values_of(resolution)["root_cause"] == [rater_2_choice.pk]
    assert values_of(resolution)["symptom"] == [other_symptom.pk]
    assert resolution.note == "Settled in the weekly meeting."
