"""An import process killed with SIGKILL half-way through a file leaves nothing of it (PostgreSQL)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from annotator.models import Issue
from tests.annotator.importers.file_records import rest_issue

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def issue_rows_locked() -> bool:
    """Some process has written to the issue table in a transaction not yet committed."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE relation = 'annotator_issue'::regclass "
            "AND mode = 'RowExclusiveLock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.django_db(transaction=True)
def test_a_killed_import_leaves_nothing_visible(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a second process writes to the test database")
    path = tmp_path / "issues.jsonl"
    path.write_text("".join(json.dumps(rest_issue(n, comments=3)) + "\n" for n in range(1, 20_001)), encoding="utf-8")
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "config.settings"}
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "import_issues", str(path), "--no-progress"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not issue_rows_locked():
            assert process.poll() is None, "the import ended before it was killed; give it a larger file"
            assert time.monotonic() < deadline, "the import wrote nothing in two minutes"
            time.sleep(0.05)
        time.sleep(1)  # a few more batches
        assert process.poll() is None, "the import ended before it was killed; give it a larger file"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()

    deadline = time.monotonic() + 30
    while issue_rows_locked() and time.monotonic() < deadline:  # the server notices the dropped connection
        time.sleep(0.1)
    assert Issue.objects.count() == 0
