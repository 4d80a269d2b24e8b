"""Browser fixtures: Playwright driving the system Chromium against pytest-django's live server.

Playwright never downloads a browser here; it drives Debian's `chromium` (see scripts/install-browser.sh).
"""

import os
import shutil
from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        if path := shutil.which(name):
            return path
    return None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but no chromium is installed (scripts/install-browser.sh)")
        pytest.skip("no system chromium: run `make browser` to install it")
    # Playwright's sync API runs its own event loop; Django must allow ORM calls from the test thread.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def new_context(browser):
    """new_context() -> a fresh, isolated browser context (its own cookies), closed after the test."""
    contexts = []

    def make(**kwargs):
        context = browser.new_context(viewport={"width": 1360, "height": 900}, **kwargs)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def login(live_server):
    """login(context, username, password) -> a page logged in through the real login form."""

    def do(context, username: str, password: str = "correct horse battery staple"):
        page = context.new_page()
        # The live server's first request imports the whole app: on a busy machine that alone can take 10 s.
        page.goto(f"{live_server.url}/accounts/login/", timeout=30_000)
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.press("#id_password", "Enter")
        page.wait_for_load_state()
        assert "/accounts/login/" not in page.url, f"login as {username} failed"
        return page

    return do


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=False)
        return path

    return take
