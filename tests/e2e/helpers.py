"""Keyboard-only helpers for the labelling page, shared by the browser tests."""

import re
from dataclasses import dataclass

from playwright.sync_api import Page, expect

LABEL_URL = re.compile(r"/studies/\d+/label/\d+/$")


@dataclass(frozen=True)
class KeyboardLabels:
    """What a rater types on one issue: a digit for the first picker, filter text for the others."""

    first_digit: str
    filters: tuple[str, ...]  # type-ahead text for each following picker, in page order
    note: str
    tab_after_first: bool = False  # leave the first picker with Tab Tab instead of Enter


def focused_testid(page: Page) -> str:
    return page.evaluate("document.activeElement && (document.activeElement.dataset.testid || '')") or ""


def wait_for_labelling_script(page: Page) -> None:
    """The script numbers the first visible options once it has run; keys only work after that."""
    page.wait_for_function(
        "() => { const hint = document.querySelector('.picker .key-hint'); return hint && hint.textContent === '1'; }"
    )


def focus_by_tab(page: Page, testid: str, *, limit: int = 60) -> None:
    """Press Tab until the element with this data-testid has the focus (as a keyboard user would)."""
    for _ in range(limit):
        if focused_testid(page) == testid:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached [data-testid={testid}]")


def label_with_keyboard(page: Page, labels: KeyboardLabels, *, dimension_keys: list[str]) -> None:
    """Choose a category in every picker, write a note and submit, using only keys."""
    wait_for_labelling_script(page)
    page.keyboard.press(labels.first_digit)  # the first picker is active on load
    if labels.tab_after_first:
        page.keyboard.press("Tab")  # out of the radio group, to the "propose a new category" box
        assert focused_testid(page) == f"proposal-{dimension_keys[0]}"
        page.keyboard.press("Tab")
    else:
        page.keyboard.press("Enter")  # confirm, move to the next picker's filter
    for key, text in zip(dimension_keys[1:], labels.filters, strict=True):
        assert focused_testid(page) == f"picker-filter-{key}", f"expected the {key} filter to have the focus"
        page.keyboard.type(text)
        page.keyboard.press("Enter")
    assert focused_testid(page) == "note", "after the last picker the note should have the focus"
    page.keyboard.type(labels.note)
    before = page.url
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: url != before)
    page.wait_for_load_state()


def checked_names(page: Page, dimension_key: str) -> list[str]:
    """The names of the categories checked in one picker."""
    return page.eval_on_selector_all(
        f"#picker-{dimension_key} .opt input:checked",
        "inputs => inputs.filter(i => i.value).map(i => i.closest('label').querySelector('.opt-name').textContent)",
    )


def expect_saved_draft(page: Page) -> None:
    expect(page.get_by_test_id("save-status")).to_contain_text("Draft saved", timeout=10_000)
