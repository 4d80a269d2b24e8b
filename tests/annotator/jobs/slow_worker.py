"""Loaded into the Celery worker of test_worker_killed (``celery worker --include``), never by the app.

Holds every file import, spreadsheet reading and package build, once claimed, while the file named by JOBS_TEST_GATE
exists: the test can then kill the worker mid-job, remove the gate, and watch the job finish.
"""

import functools
import os
import time
from pathlib import Path

from annotator.services import imports
from annotator.services.exports import jobs as export_jobs
from annotator.services.sheets_import import uploads as sheet_uploads

GATE = Path(os.environ["JOBS_TEST_GATE"])


def held(function):
    @functools.wraps(function)
    def wait_then_run(*args, **kwargs):
        while GATE.exists():
            time.sleep(0.05)
        return function(*args, **kwargs)

    return wait_then_run


imports.file_import_execute = held(imports.file_import_execute)
export_jobs.replication_package_write = held(export_jobs.replication_package_write)
sheet_uploads.sheets_upload_read = held(sheet_uploads.sheets_upload_read)
