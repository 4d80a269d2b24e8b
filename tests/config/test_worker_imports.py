"""A web worker holds only what serving the rater needs: the numerical libraries (numpy and what is built on it)
and openpyxl are imported when the agreement report, an export, a version move or a spreadsheet import runs,
RapidFuzz when labels are cleaned and RE2 when a fix's files are mapped to components, not when the app loads,
nor while it serves a rater's requests."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ["numpy", "scipy", "statsmodels", "krippendorff", "pandas", "openpyxl", "rapidfuzz", "re2"]
LOADING = f"""
import json, sys
import config.wsgi  # the app as gunicorn loads it: settings, apps, admin, the URLconf with every view
import annotator.services.annotations, annotator.api.views, annotator.views.labelling
print(json.dumps([name for name in {HEAVY!r} if name in sys.modules]))
"""
# A gunicorn worker's life as a rater uses it: the app loaded, then the rater's requests, twice over (the first
# submit leaves the issue open, the second completes it: freeze and adjudication record).
SERVING = f"""
import json, sys
import config.wsgi
from django.test import Client
from core.models import User

study, values = int(sys.argv[1]), json.loads(sys.argv[2])
client = Client()
client.force_login(User.objects.get(username="rater_a"))

def ok(response):
    assert response.status_code == 200, (response.status_code, response.content[:500])
    return response

for _ in range(2):
    upcoming = ok(client.get(f"/api/v1/studies/{{study}}/assignments/next/")).json()["assignment"]
    annotation, version = upcoming["annotation"], upcoming["annotation_version"]
    ok(client.get(f"/studies/{{study}}/label/{{upcoming['id']}}/"))
    for note in ("first", "second"):
        draft = {{"values": values, "note": note, "version": version}}
        put = client.put(f"/api/v1/annotations/{{annotation}}/draft/", draft, content_type="application/json")
        version = ok(put).json()["version"]
    final = {{"values": values, "note": "done", "version": version}}
    ok(client.post(f"/api/v1/annotations/{{annotation}}/submit/", final, content_type="application/json"))
    ok(client.get(f"/studies/{{study}}/queue/"))
    ok(client.get(f"/api/v1/studies/{{study}}/assignments/mine/"))
print(json.dumps([name for name in {HEAVY!r} if name in sys.modules]))
"""


def _run(script: str, env: dict[str, str], *args: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_loading_the_app_imports_no_numerical_library(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "CACHE_URL": "",
    }
    assert _run(LOADING, env) == []


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.mark.django_db(transaction=True)  # the serving process reads the world from the test database
def test_serving_a_rater_imports_no_numerical_library(users):
    from tests.annotator.worlds import make_world, submit

    world = make_world(users, n_issues=3)
    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][1].pk]}
    submit(world, users, "rater_b", 1, values=values)  # rater A's second submit completes the issue
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": _database_url(),
        "ALLOWED_HOSTS": "testserver",
        "CACHE_URL": "",
        # As under docker-compose, tasks (the agreement recomputation after a submit) go to a broker, not run here.
        "CELERY_BROKER_URL": "memory://",
    }
    assert _run(SERVING, env, str(world.study.pk), json.dumps(values)) == []
    world.a.annotation.refresh_from_db()
    assert world.a.annotation.submitted_at is not None
