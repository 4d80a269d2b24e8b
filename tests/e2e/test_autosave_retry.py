"""An autosave the database could not take (503, Retry-After) says so and saves by itself a moment later."""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotator.models import Annotation, Assignment
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_owner, make_study, make_taxonomy
from tests.e2e.helpers import expect_saved_draft, wait_for_labelling_script
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BUSY = {
    "error": {
        "code": "unavailable",
        "message": "The database is busy or cannot be reached, so nothing was saved by this request. Try again in a "
        "moment.",
    }
}


def test_a_busy_database_answer_is_shown_and_the_draft_is_saved_on_the_retry(live_server, new_context, login):
    owner = make_owner("owner")
    rater = UserFactory(username="rater_a")
    taxonomy = make_taxonomy()
    IssueFactory(repository=RepositoryFactory(owner="deepspeedai", name="DeepSpeed"))
    study = make_study(owner=owner, raters=[rater], taxonomy=taxonomy, name="Busy database", raters_per_issue=1)
    draw(study, actor=owner, size=1, seed=1)
    assignment = Assignment.objects.get(rater=rater, study_issue__study=study)

    page = login(new_context(), rater.username)
    answered_busy = []

    def busy_once(route):
        if not answered_busy:  # the first autosave meets a busy database; the server never sees it
            answered_busy.append(route.request.url)
            headers = {"Retry-After": "1"}
            route.fulfill(status=503, headers=headers, content_type="application/json", body=json.dumps(BUSY))
        else:
            route.continue_()

    page.route("**/api/v1/annotations/*/draft/", busy_once)
    page.goto(live_server.url + reverse("annotator:label", args=[study.pk, assignment.pk]))
    wait_for_labelling_script(page)
    page.keyboard.press("1")

    expect(page.get_by_test_id("save-status")).to_contain_text("trying again in 1 s", timeout=10_000)
    expect(page.get_by_test_id("live-error")).to_contain_text("nothing was saved")
    assert Annotation.objects.get(assignment=assignment).version == 1  # nothing reached the server

    expect_saved_draft(page)  # the retry, with no key pressed
    expect(page.get_by_test_id("live-error")).to_be_hidden()
    saved = Annotation.objects.get(assignment=assignment)
    assert answered_busy and saved.version == 2
    assert list(saved.values.values_list("category", flat=True)) == [taxonomy["cats"]["symptom"][0].pk]
