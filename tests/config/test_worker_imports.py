"""A web worker holds only what serving the rater needs: the numerical libraries of the agreement report are
imported when the report, an export or a version move runs, not when the app and its URLs load."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# numpy is not listed: openpyxl, which the spreadsheet importer loads with the URLs, brings it along.
HEAVY = ["scipy", "statsmodels", "krippendorff", "pandas"]
SCRIPT = f"""
import json, sys
import config.wsgi  # the app as gunicorn loads it: settings, apps, admin, the URLconf with every view
import annotator.services.annotations, annotator.api.views, annotator.views.labelling
print(json.dumps([name for name in {HEAVY!r} if name in sys.modules]))
"""


def test_loading_the_app_imports_no_numerical_library(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "CACHE_URL": "",
    }
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []
