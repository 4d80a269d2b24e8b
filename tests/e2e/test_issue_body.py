"""In the browser: long log lines in an issue scroll sideways (reachable by keyboard) or wrap at the reader's
choice, kept across pages; an image that cannot be loaded falls back to its placeholder link."""

import pytest
from playwright.sync_api import expect

from annotator.models import Assignment
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_study
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOG_LINE = "[rank3]: torch.distributed.DistBackendError: NCCL error in ProcessGroupNCCL.cpp:1970, unhandled " * 5
BODY = f"Training hangs.\n\n```\n{LOG_LINE}\nsecond line\n```\n"
# Nothing listens on port 9 of this machine: the image fails as it would offline, and nothing leaves it.
UNREACHABLE_IMAGE = "https://127.0.0.1:9/loss.png"

OVERFLOWS = "el => el.scrollWidth > el.clientWidth"


@pytest.fixture
def rater_and_issue(db):
    rater = UserFactory(username="rater_a")
    issue = IssueFactory(repository=RepositoryFactory(owner="deepspeedai", name="DeepSpeed"), body=BODY)
    return rater, issue


def _tab_to_code_block(page, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "PRE":
            return
    raise AssertionError("Tab never reached the code block")


def test_a_long_log_line_scrolls_by_keyboard_and_wraps_on_request_remembered_on_the_labelling_page(
    live_server, new_context, login, rater_and_issue
):
    rater, issue = rater_and_issue
    study = make_study(owner=UserFactory(username="owner"), raters=[rater], raters_per_issue=1, name="Hangs")
    draw(study, actor=study.created_by, size=1)
    assignment = Assignment.objects.get(rater=rater, study_issue__study=study)

    page = login(new_context(), rater.username)
    page.goto(f"{live_server.url}/issues/{issue.pk}/")
    block = page.locator("#issue-body .md pre")
    assert block.evaluate(OVERFLOWS), "by default a long line keeps its length and the block scrolls"
    _tab_to_code_block(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    expect(block).not_to_have_js_property("scrollLeft", 0)

    toggle = page.get_by_test_id("code-wrap")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert not block.evaluate(OVERFLOWS), "wrapped, the whole line fits the block's width"

    page.goto(f"{live_server.url}/studies/{study.pk}/label/{assignment.pk}/")
    expect(page.get_by_test_id("code-wrap")).to_have_attribute("aria-pressed", "true")
    assert not page.locator("#issue-body .md pre").evaluate(OVERFLOWS), "the choice holds on the next page"
    page.get_by_test_id("code-wrap").click()
    page.reload()
    expect(page.get_by_test_id("code-wrap")).to_have_attribute("aria-pressed", "false")
    assert page.locator("#issue-body .md pre").evaluate(OVERFLOWS)


def test_without_javascript_the_block_scrolls_and_takes_the_focus(live_server, new_context, login, rater_and_issue):
    rater, issue = rater_and_issue
    page = login(new_context(java_script_enabled=False), rater.username)
    page.goto(f"{live_server.url}/issues/{issue.pk}/")
    block = page.locator("#issue-body .md pre")
    expect(page.get_by_test_id("code-wrap")).to_be_hidden()
    assert block.get_attribute("tabindex") == "0" and block.get_attribute("aria-label") == "Code block"
    assert block.evaluate(OVERFLOWS)
    _tab_to_code_block(page)


def test_an_image_that_cannot_load_falls_back_to_its_link(live_server, new_context, login, rater_and_issue):
    rater, issue = rater_and_issue
    issue.body = f"The curve:\n\n![loss curve]({UNREACHABLE_IMAGE})"
    issue.save(update_fields=["body"])
    page = login(new_context(), rater.username)
    page.goto(f"{live_server.url}/issues/{issue.pk}/?images=load")
    placeholder = page.locator(".md a.external-image")
    expect(placeholder).to_have_text("[image not loaded: loss curve]")
    assert placeholder.get_attribute("href") == UNREACHABLE_IMAGE
    assert page.locator(".md img").count() == 0
