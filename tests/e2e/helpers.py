"""Keyboard-only helpers for the labelling page, shared by the browser tests."""

import re
from dataclasses import dataclass

from playwright.sync_api import Page, expect

from tests.readme import readme_labelling_keys

LABEL_URL = re.compile(r"/studies/\d+/label/\d+/$")
# The README's spelling of a key -> Playwright's.
PLAYWRIGHT_KEYS = {"Esc": "Escape", "↓": "ArrowDown", "↑": "ArrowUp", "Ctrl+Enter": "Control+Enter"}


@dataclass(frozen=True)
class KeyboardLabels:
    """What a rater types on one issue: a digit for the first picker, filter text for the others."""

    first_digit: str
    filters: tuple[str, ...]  # type-ahead text for each following picker, in page order
    note: str
    tab_after_first: bool = False  # leave the first picker with Tab instead of Enter


class DocumentedKeys:
    """A rater who presses only the keys the README's "Labelling" table lists, spelled as the README spells them."""

    def __init__(self, page: Page):
        self.page = page
        self.documented = readme_labelling_keys()

    def press(self, *keys: str) -> None:
        for key in keys:
            assert key in self.documented, f"{key} is not in the README's table of labelling keys"
            self.page.keyboard.press(PLAYWRIGHT_KEYS.get(key, key))

    def type(self, text: str) -> None:
        """Type-ahead into a filter: the table's "letters"."""
        assert "letters" in self.documented and re.fullmatch(r"[a-z ]+", text), text
        assert focused_testid(self.page).startswith("picker-filter-"), "letters filter only in a filter box"
        self.page.keyboard.type(text)

    def write(self, testid: str, text: str) -> None:
        """Free text (the note, a proposal) into the box that has the focus."""
        assert focused_testid(self.page) == testid, f"expected {testid} to have the focus"
        self.page.keyboard.type(text)


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


def label_with_keyboard(
    page: Page, labels: KeyboardLabels, *, dimension_keys: list[str], multi: tuple[str, ...] = ()
) -> None:
    """Choose a category in every picker, write a note and submit, using only the README's keys.

    `multi` names the dimensions that allow several categories: there `Enter` adds the match and stays, and a
    second `Enter` goes on.
    """
    wait_for_labelling_script(page)
    keys = DocumentedKeys(page)
    assert focused_testid(page) == f"picker-filter-{dimension_keys[0]}", "the first filter has the focus on load"
    keys.press(labels.first_digit)
    keys.press("Tab" if labels.tab_after_first else "Enter")  # either way, to the next dimension's filter
    for key, text in zip(dimension_keys[1:], labels.filters, strict=True):
        assert focused_testid(page) == f"picker-filter-{key}", f"expected the {key} filter to have the focus"
        keys.type(text)
        keys.press("Enter")
        if key in multi:
            assert focused_testid(page) == f"picker-filter-{key}", f"{key} allows several: Enter stays"
            keys.press("Enter")
    keys.write("note", labels.note)
    before = page.url
    keys.press("Ctrl+Enter")
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
