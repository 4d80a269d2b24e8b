"""Fixtures for the agreement tests: a clean cache per test (`outsider` and `client_for`: tests/conftest.py)."""

import pytest


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Agreement reports are cached: every test here starts and ends with an empty cache."""
