"""A study from a saved search with 20% overlap, in a real browser: the owner starts it from the issue search,
draws a round with a reliability subset, two raters label; single-coded issues are final at once, the
double-coded ones go to agreement. Also: inviting a rater by username, and a rater's 403 on an owner's page."""

import datetime as dt

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotator.models import Assignment, Resolution, Study, StudyIssue
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import make_owner, make_study, make_taxonomy
from tests.e2e.helpers import wait_for_labelling_script
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"
# The machine running the browser tests may be busy: a draw or a submit can take longer than the default 10 s.
SLOW = 45_000


def _context(new_context):
    context = new_context()
    context.set_default_timeout(SLOW)
    return context


def _url(live_server, name: str, *args) -> str:
    return f"{live_server.url}{reverse(name, args=args)}"


def _accounts():
    owner = make_owner("frame_owner")
    owner.set_password(PASSWORD)
    owner.save()
    raters = [UserFactory(username=name) for name in ("rater_one", "rater_two")]
    for rater in raters:
        rater.set_password(PASSWORD)
        rater.save()
    return owner, raters


def _label_queue(page, live_server, study: Study, rater, *, cause_digit: str) -> int:
    """Label every issue of the rater's queue with the keyboard: symptom 1, root cause `cause_digit`, submit."""
    assignments = list(Assignment.objects.filter(study_issue__study=study, rater=rater).order_by("position"))
    for assignment in assignments:
        page.goto(_url(live_server, "annotator:label", study.pk, assignment.pk))
        wait_for_labelling_script(page)
        page.keyboard.press("1")
        page.keyboard.press("Enter")
        page.keyboard.press(cause_digit)
        before = page.url
        page.keyboard.press("Control+Enter")
        page.wait_for_url(lambda url, before=before: url != before)
    return len(assignments)


def test_a_study_from_a_saved_search_with_twenty_percent_overlap(live_server, new_context, login):
    owner, raters = _accounts()
    taxonomy = make_taxonomy()
    repo = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    when = dt.datetime(2024, 5, 2, tzinfo=dt.UTC)
    matching = IssueFactory.create_batch(
        10, repository=repo, title="NCCL timeout at init", labels=["bug"], created=when
    )
    IssueFactory.create_batch(3, repository=repo, title="Loss is NaN", labels=["bug"], created=when)
    demo = IssueFactory(repository=repo, title="NCCL timeout demo", labels=["bug"], created=when, demo=True)

    page = login(_context(new_context), owner.username, PASSWORD)
    page.goto(f"{_url(live_server, 'annotator:issue_list')}?q=NCCL&label=bug")
    page.get_by_test_id("study-from-search").click()
    page.wait_for_url("**/studies/new/**")
    expect(page.locator("#id_frame_kind")).to_have_value("search")
    expect(page.locator("#id_search_q")).to_have_value("NCCL")
    page.fill("#id_name", "NCCL hangs, partial overlap")
    page.select_option("#id_taxonomy_version", value=str(taxonomy["version"].pk))
    page.select_option("#id_raters", value=[str(r.pk) for r in raters])
    page.get_by_test_id("study-create-submit").click()
    page.wait_for_url("**/draw/")
    study = Study.objects.get(name="NCCL hangs, partial overlap")
    expect(page.get_by_test_id("study-frame")).to_contain_text("saved search")

    page.fill("#id_size", "10")
    page.select_option("#id_overlap_mode", value="percent")
    page.fill("#id_overlap_value", "20")
    page.get_by_test_id("sample-draw-submit").click()
    page.wait_for_url(f"**/studies/{study.pk}/")
    expect(page.get_by_test_id("round-overlap")).to_contain_text("2 of 10 double-coded")
    expect(page.get_by_test_id("sampled-issue")).to_have_count(10)
    drawn = set(StudyIssue.objects.filter(study=study).values_list("issue_id", flat=True))
    assert drawn == {i.pk for i in matching} and demo.pk not in drawn

    # Each rater labels their queue with the keyboard; on the double-coded issues they disagree on root cause.
    counts = []
    for rater, digit in zip(raters, ("1", "2"), strict=True):
        rater_page = login(_context(new_context), rater.username, PASSWORD)
        counts.append(_label_queue(rater_page, live_server, study, rater, cause_digit=digit))
    assert sorted(counts) == [6, 6]  # 2 double-coded each, 8 single-coded split 4 / 4

    single = Resolution.objects.filter(study_issue__study=study, study_issue__double_coded=False)
    assert single.count() == 8
    assert set(single.values_list("status", "method")) == {("resolved", "single_coded")}
    double = Resolution.objects.filter(study_issue__study=study, study_issue__double_coded=True)
    assert set(double.values_list("status", flat=True)) == {"pending"} and double.count() == 2

    page.goto(_url(live_server, "annotator:study_agreement", study.pk))
    expect(page.get_by_test_id("subset-note")).to_contain_text("computed on 2 double-coded issues of 10")
    page.goto(_url(live_server, "annotator:study_detail", study.pk))
    expect(page.get_by_test_id("final-status").filter(has_text="Single-coded")).to_have_count(8)


def test_an_owner_invites_a_rater_by_username_and_the_rater_sees_the_study(live_server, new_context, login):
    owner, (first, newcomer) = _accounts()
    study = make_study(owner=owner, raters=[first], raters_per_issue=1, name="Invitations")
    page = login(_context(new_context), owner.username, PASSWORD)
    page.goto(_url(live_server, "annotator:study_detail", study.pk))
    page.fill("#member-who", newcomer.username)
    page.select_option("#member-role", value="rater")
    page.get_by_test_id("member-add").get_by_role("button", name="Add").click()
    page.wait_for_load_state()
    expect(page.get_by_test_id("members")).to_contain_text(newcomer.username)

    rater_page = login(_context(new_context), newcomer.username, PASSWORD)
    rater_page.goto(_url(live_server, "annotator:study_list"))
    rater_page.get_by_role("link", name="Invitations").click()
    expect(rater_page.get_by_role("heading", level=1)).to_have_text("Invitations")


def test_a_rater_on_an_owners_page_gets_the_site_403_with_navigation(live_server, new_context, login):
    owner, (rater, _other) = _accounts()
    study = make_study(owner=owner, raters=[rater], raters_per_issue=1, name="Owners only")
    page = login(_context(new_context), rater.username, PASSWORD)
    response = page.goto(_url(live_server, "annotator:study_draw", study.pk))
    assert response.status == 403
    expect(page.get_by_test_id("error-page")).to_contain_text("Your role does not allow this")
    expect(page.locator("nav.mainnav")).to_be_visible()
    expect(page.get_by_test_id("account-menu")).to_contain_text(rater.username)
    page.get_by_role("link", name="Your studies").click()
    expect(page.get_by_role("link", name="Owners only")).to_be_visible()
