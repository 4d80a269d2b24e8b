"""Fixtures for the GitHub importer: clients that never really sleep, a seeded repository (the fake GitHub
itself and the settings pointing at it: tests/annotator/conftest.py)."""

import random

import pytest

from annotator.importers.github import GitHubClient
from tests.annotator.github.fake_github import FakeGitHub

REPO = "deepspeedai/DeepSpeed"


@pytest.fixture
def sleeps() -> list[float]:
    """Every pause a client asked for, in seconds (nothing really waits)."""
    return []


@pytest.fixture
def make_client(fake_github, sleeps):
    def make(**options) -> GitHubClient:
        options.setdefault("token", "test-token")
        return GitHubClient(base_url=fake_github.base_url, sleep=sleeps.append, rng=random.Random(7), **options)

    return make


def seed(fake: FakeGitHub, full_name: str = REPO, *, issues: int = 0, closed: int = 0, pulls: int = 0) -> list[dict]:
    """A repository with open issues, closed issues and pull requests, interleaved in update order."""
    if full_name.lower() not in fake.repos:
        fake.add_repo(full_name)
    made = []
    for i in range(max(issues, closed, pulls)):
        if i < issues:
            made.append(fake.add_issue(full_name))
        if i < closed:
            made.append(fake.add_issue(full_name, state="closed"))
        if i < pulls:
            made.append(fake.add_issue(full_name, pull=True, state="closed"))
    return made


@pytest.fixture
def seeded(fake_github):
    """deepspeedai/DeepSpeed on the fake: 250 issues and pulls (3 pages), 2 comments on every 5th."""
    items = seed(fake_github, issues=120, closed=100, pulls=30)
    for item in items[::5]:
        fake_github.add_comment(REPO, item["number"])
        fake_github.add_comment(REPO, item["number"])
    return items
