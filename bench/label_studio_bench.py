"""Label Studio 1.23 measured on this machine, the way bench/labeling_bench.py measures Taxonomist.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/label_studio_bench.py
    ... bench/label_studio_bench.py --tasks 2000 --no-write      # a quick try
    ... bench/label_studio_bench.py --reuse                      # again, on the venv and database kept last time

Label Studio is not a dependency of this project and none of its code is kept here: the benchmark
pip-installs `label-studio==1.23.*` (and gunicorn) from PyPI into a scratch virtualenv outside the
repository (default ~/.cache/taxonomist-bench/label-studio-1.23, --venv to change; a fresh one each
run unless --reuse) and drives it from outside: a few Django ORM steps run by that venv's python
(migrate, the user and its API token, counting SQL queries), everything else over HTTP.

DATABASE_URL names the PostgreSQL server; the benchmark creates a scratch database (default
`taxonomist_lsbench`) and drops it at the end (--keep keeps it; --reuse keeps it and, when it holds
the project with the same number of tasks, skips the load). Label Studio runs under gunicorn (2
workers, DEBUG off) on 127.0.0.1 with its own settings (`core.settings.label_studio`), its data folder
in a temporary directory, Sentry and usage analytics off (no calls to third parties).

The project has one Choices control (4 choices) over a Text field. N tasks (default 100,000), each a
text of about 1,500 characters like a GitHub issue body, are loaded through Label Studio's own import
API (POST /api/projects/{id}/import, in batches), the first half with one annotation each (imported
with the tasks, as a finished annotation by the benchmark user: the import keeps the task counters
and states as it always does). A data manager tab is created the way the UI creates its first one.

Timed, after 20 warm-up requests of each kind, R requests (default 200) of each: (a) a page of 100
tasks as the data manager asks for it (GET /api/tasks?page=K&page_size=100&view=V&project=P, random
pages), (b) the same with the project only (no tab: fewer computed columns), (c) one annotation created
on a task that had none (POST /api/tasks/{id}/annotations/, with what the labelling UI sends), with
token authentication. Server time is gunicorn's own measure (its access log, keyed by an X-Bench-Id
header), the round trip adds the client and the loopback connection. SQL queries per request are
counted afterwards in-process (Django's test client with CaptureQueriesContext, DEBUG still off, on
the same database). The report goes to stdout and to docs/benchmarks.md, "## Label Studio on this
machine" (--no-write to skip).

Under load, side by side (--load):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/label_studio_bench.py --load \
        --tasks 10000 --cache-url redis://127.0.0.1:6379/13 --broker-url redis://127.0.0.1:6379/14

--raters raters (default 20) at once for --seconds (default 60) against Taxonomist and the same against Label
Studio, in one run, both under docker-compose's web command (its gunicorn arguments read from
docker-compose.yml) and both up for the whole run. The sides take turns (--turns, default 2: Taxonomist 30 s,
Label Studio 30 s, Taxonomist 30 s, Label Studio 30 s), so that a drift in the machine's speed during the run
falls on both; each side's turns are pooled. Taxonomist: a study of --tasks issues (two raters per issue,
spread over the raters) in its own scratch database (--taxonomist-db-name, default taxonomist_lbench_load,
dropped at the end), with the Redis cache and broker docker-compose gives it: two scratch Redis databases
named on the command line, emptied before and after. Each rater loops: next, two autosaved drafts, submit, a
page of 100 of its tasks. Label Studio: --tasks tasks as above (the venv of an earlier run is reused when it
holds Label Studio), one user per rater with its token; each loops through its labelling stream as its UI
does: next task, a draft saved and saved again, the annotation submitted with it, a data manager page of 100.
Reports errors, p50/p95/p99 per kind and over all requests, throughput and the RSS and PSS of gunicorn's
master and workers after the load, to docs/benchmarks.md, "## Under load: 20 raters, Taxonomist and Label
Studio side by side".
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    LoadRun,
    TimedRequests,
    compose_web_command,
    django_setup,
    gunicorn,
    gunicorn_memory,
    http_login,
    machine,
    percentile_ms,
    rater_load,
    scratch_database,
    served_env,
    server_times,
    stats,
    stopwatch,
    today,
    write_section,
)

SECTION = "## Label Studio on this machine"
WANTED = (1, 23)  # the release the published figures are for
DEFAULT_VENV = Path.home() / ".cache" / "taxonomist-bench" / "label-studio-1.23"
EMAIL = "bench@example.com"
PASSWORD = "bench-password-not-secret"
PROJECT_TITLE = "Taxonomist benchmark"
WARMUP = 20
CHOICES = ["Bug", "Feature request", "Question", "Documentation"]
LABEL_CONFIG = (
    "<View>\n"
    '  <Text name="text" value="$text"/>\n'
    '  <Choices name="category" toName="text" choice="single" showInLine="true">\n'
    + "".join(f'    <Choice value="{choice}"/>\n' for choice in CHOICES)
    + "  </Choices>\n</View>\n"
)
KINDS = [
    # key, what, the published Label Studio 1.23 figure: median ms (SQL queries) on PostgreSQL
    ("list", "GET a page of 100 tasks, as the data manager asks (its tab)", "128 (132)"),
    ("list_plain", "GET a page of 100 tasks, project only (no tab)", "128 (132)"),
    ("annotate", "POST one annotation (API)", "60 (72)"),
]

# Run by the scratch venv's python in Label Studio's package folder: the few steps that need its ORM.
# It prints one line "LSBENCH <json>" with its answer.
LS_SCRIPT = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
import django
django.setup()
from django.core.management import call_command
from django.db import connection

command, args = sys.argv[1], json.loads(sys.argv[2])
answer = {}

if command == "setup":
    import label_studio
    from organizations.models import Organization
    from users.models import User
    call_command("migrate", verbosity=0)
    user = User.objects.filter(email=args["email"]).first()
    if user is None:
        user = User.objects.create_user(email=args["email"], password=args["password"])
        user.is_staff = user.is_superuser = True
        user.save()
    org = Organization.objects.first()
    if org is None:
        org = Organization.create_organization(
            created_by=user, title="Label Studio", legacy_api_tokens_enabled=True
        )
    else:
        org.add_user(user)
    user.active_organization = org
    user.save(update_fields=["active_organization"])
    from rest_framework.authtoken.models import Token
    rater_tokens = []
    for i in range(1, args.get("raters", 0) + 1):  # annotators of the load run, members of the organization
        email = f"rater{i}@example.com"
        rater = User.objects.filter(email=email).first()
        rater = rater or User.objects.create_user(email=email, password=args["password"])
        org.add_user(rater)
        rater.active_organization = org
        rater.save(update_fields=["active_organization"])
        rater_tokens.append(Token.objects.get_or_create(user=rater)[0].key)
    answer = {"token": user.auth_token.key, "version": label_studio.__version__, "rater_tokens": rater_tokens}

elif command == "state":
    from data_manager.models import View
    from projects.models import Project
    from tasks.models import Annotation, Task
    project = Project.objects.filter(title=args["title"]).first()
    if project is not None:
        tasks = Task.objects.filter(project=project)
        open_ids = list(tasks.filter(total_annotations=0).values_list("id", flat=True))
        view = View.objects.filter(project=project).order_by("id").first()
        answer = {
            "project": project.id,
            "view": view.id if view else None,
            "tasks": tasks.count(),
            "annotated": tasks.exclude(total_annotations=0).count(),
            "annotations": Annotation.objects.filter(project=project).count(),
            "open_task_ids": open_ids,
        }

elif command == "queries":
    from django.conf import settings
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    client = Client(HTTP_AUTHORIZATION="Token " + args["token"])
    answer = {"list": 0, "list_plain": 0, "annotate": 0, "debug": settings.DEBUG}
    for i, task_id in enumerate(args["task_ids"]):
        for key in ("list", "list_plain"):
            with CaptureQueriesContext(connection) as captured:
                response = client.get("/api/tasks", args[key + "_params"][i])
            assert response.status_code == 200, (response.status_code, response.content[:300])
            answer[key] = max(answer[key], len(captured))
        with CaptureQueriesContext(connection) as captured:
            response = client.post(
                f"/api/tasks/{task_id}/annotations/", data=args["annotation"], content_type="application/json"
            )
        assert response.status_code == 201, (response.status_code, response.content[:300])
        answer["annotate"] = max(answer["annotate"], len(captured))

print("LSBENCH " + json.dumps(answer))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=100_000, help="tasks in the project (default 100000)")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per kind (default 200)")
    parser.add_argument("--batch", type=int, default=1000, help="tasks per import request (default 1000)")
    parser.add_argument("--db-name", default="taxonomist_lsbench", help="scratch database, created and dropped")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help=f"scratch virtualenv (default {DEFAULT_VENV})")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database afterwards")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="reuse the venv and a kept database holding the project (skips install and load; implies --keep)",
    )
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    load = parser.add_argument_group("under load (--load): raters at once against both, docker-compose's web settings")
    load.add_argument("--load", action="store_true", help="run the side-by-side load instead of the timed requests")
    load.add_argument("--raters", type=int, default=20, help="raters working at once (default 20)")
    load.add_argument("--seconds", type=float, default=60, help="how long they work, on each side (default 60)")
    load.add_argument(
        "--turns", type=int, default=2, help="turns each side's time is taken in, the sides alternating (default 2)"
    )
    load.add_argument(
        "--taxonomist-db-name", default="taxonomist_lbench_load", help="Taxonomist's scratch database (dropped)"
    )
    load.add_argument("--cache-url", default="", help="Taxonomist's CACHE_URL: a scratch Redis database (emptied)")
    load.add_argument(
        "--broker-url", default="", help="its CELERY_BROKER_URL: another scratch Redis database (emptied)"
    )
    args = parser.parse_args()
    if args.load:
        _side_by_side(args)
        return
    if args.tasks < 2 * (WARMUP + args.requests) + 10:
        raise SystemExit(f"--tasks must leave at least {WARMUP + args.requests + 5} tasks without an annotation")

    server_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    version, note = _install(args.venv, reuse=args.reuse)
    print(f"label-studio {version} in {args.venv}", flush=True)
    python = args.venv / "bin" / "python"
    package = _package_folder(python)
    scratch = scratch_database(
        vendor="postgresql", name=args.db_name, server_url=server_url, keep=args.keep or args.reuse, reuse=args.reuse
    )
    data_dir = Path(tempfile.mkdtemp(prefix="lsbench-data-"))
    try:
        env = _ls_env(scratch.url, data_dir)
        phases: dict[str, float] = {}
        with stopwatch() as elapsed:
            setup = _ls(python, package, env, "setup", {"email": EMAIL, "password": PASSWORD})
        phases["migrate + user"] = elapsed[0]
        state = _ls(python, package, env, "state", {"title": PROJECT_TITLE})
        reused = bool(state and state["tasks"] == args.tasks and state["view"])
        if state and not reused:
            raise SystemExit(
                f"the database {args.db_name} holds a project of {state['tasks']:,} tasks, not {args.tasks:,}; "
                "run without --reuse to load it afresh"
            )
        with tempfile.TemporaryDirectory() as folder:
            access_log = Path(folder) / "access.log"
            app = (args.venv / "bin" / "gunicorn", package, "core.wsgi:application")
            with gunicorn(env, workers=args.workers, access_log=access_log, app=app) as base:
                session = _session(setup["token"])
                if not reused:
                    phases.update(_load(session, base, args.tasks, args.batch))
                    state = _ls(python, package, env, "state", {"title": PROJECT_TITLE})
                with stopwatch() as elapsed:
                    _analyze(scratch.url)
                phases["VACUUM ANALYZE"] = elapsed[0]
                load_before = os.getloadavg()[0]
                round_trips, request_ids, used = _time_http(session, base, state, args.requests)
                load_after = os.getloadavg()[0]
            served = server_times(access_log)  # complete once gunicorn has stopped
        timings = {
            "server": {key: [served[request_id] for request_id in ids] for key, ids in request_ids.items()},
            "round trip": round_trips,
        }
        queries = _count_queries(python, package, env, setup["token"], state, used)
        postgres = _postgres_version(scratch.url)
    finally:
        scratch.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    facts = {
        "version": setup["version"],
        "note": note,
        "postgres": postgres,
        "state": state,
        "phases": phases,
        "reused": reused,
        "load": (load_before, load_after),
    }
    report = _markdown(args, facts, timings, queries)
    print(report)
    if not args.no_write:
        write_section(SECTION, _section(report))
        print("\nwritten to docs/benchmarks.md")


# --------------------------------------------------------------------------- the scratch venv


def _install(venv: Path, *, reuse: bool) -> tuple[str, str]:
    """Create the venv and install Label Studio 1.23.x (or the closest 1.2x); returns (version, note)."""
    python = venv / "bin" / "python"
    if reuse and python.exists():
        installed = _installed_version(python)
        if installed:
            if not (venv / "bin" / "gunicorn").exists():
                subprocess.run([str(python), "-m", "pip", "install", "--quiet", "gunicorn"], check=True)
            return installed, _version_note(installed)
    if _inside_repository(venv):
        raise SystemExit(f"the scratch venv {venv} must be outside the repository")
    version = _pick_version()
    if venv.exists():
        if not (venv / "pyvenv.cfg").exists():
            raise SystemExit(f"{venv} exists and is not a virtualenv: pass another --venv")
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    print(f"creating {venv} and installing label-studio=={version} (a few minutes)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, f"label-studio=={version}", "gunicorn"], check=True)
    installed = _installed_version(python)
    if not installed:
        raise SystemExit(f"label-studio did not install into {venv}")
    return installed, _version_note(installed)


def _inside_repository(path: Path) -> bool:
    root = Path(__file__).resolve().parent.parent
    return path.resolve().is_relative_to(root)


def _pick_version() -> str:
    """The newest 1.23.x on PyPI, else the closest 1.2x release (said in the report)."""
    pip = [sys.executable, "-m", "pip", "index", "versions", "label-studio", "--disable-pip-version-check"]
    output = subprocess.run(pip, capture_output=True, text=True, check=False).stdout
    match = re.search(r"Available versions:\s*(.+)", output)
    if not match:
        raise SystemExit(f"`pip index versions label-studio` found no releases:\n{output}")
    releases = []
    for text in match.group(1).split(","):
        parts = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text.strip())  # final releases only
        if parts:
            releases.append(tuple(int(part) for part in parts.groups()))
    candidates = [r for r in releases if r[0] == 1 and 20 <= r[1] <= 29]
    if not candidates:
        raise SystemExit("PyPI has no label-studio 1.2x release")
    # the wanted minor release if there is one, else the nearest minor (the older one on a tie), its newest patch
    minor = min({r[1] for r in candidates}, key=lambda m: (abs(m - WANTED[1]), m))
    return ".".join(map(str, max(r for r in candidates if r[1] == minor)))


def _installed_version(python: Path) -> str:
    script = "import importlib.metadata as m; print(m.version('label-studio'))"
    result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=False)
    return result.stdout.strip() if result.returncode == 0 else ""


def _version_note(version: str) -> str:
    if tuple(int(part) for part in version.split(".")[:2]) == WANTED:
        return ""
    return f"Label Studio 1.23 is not on PyPI: measured {version}, the closest 1.2x release, instead."


def _package_folder(python: Path) -> Path:
    script = "import importlib.util as u; print(u.find_spec('label_studio').submodule_search_locations[0])"
    return Path(subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=True).stdout.strip())


# --------------------------------------------------------------------------- Label Studio's configuration


def _ls_env(database_url: str, data_dir: Path) -> dict[str, str]:
    """Label Studio's settings through its environment (core/settings/base.py and label_studio.py)."""
    parts = urlsplit(database_url)
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR") if key in os.environ}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "label_studio.core.settings.label_studio",
            "DJANGO_DB": "default",  # PostgreSQL
            "POSTGRE_NAME": parts.path.lstrip("/"),
            "POSTGRE_USER": unquote(parts.username or "postgres"),
            "POSTGRE_PASSWORD": unquote(parts.password or ""),
            "POSTGRE_HOST": parts.hostname or "127.0.0.1",
            "POSTGRE_PORT": str(parts.port or 5432),
            "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
            # no calls to third parties: error reports, usage analytics and the version check are on by default
            "SENTRY_DSN": "",
            "FRONTEND_SENTRY_DSN": "",
            "COLLECT_ANALYTICS": "0",
            "LATEST_VERSION_CHECK": "0",  # it asks PyPI for the latest release when it starts
            "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "1",  # "Authorization: Token ..." as documented
        }
    )
    return env


def _ls(python: Path, package: Path, env: dict[str, str], command: str, args: dict) -> dict:
    """Run one step of LS_SCRIPT with the scratch venv's python; returns its answer."""
    result = subprocess.run(
        [str(python), "-c", LS_SCRIPT, command, json.dumps(args)],
        cwd=package,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in reversed(result.stdout.splitlines()):
        if line.startswith("LSBENCH "):
            return json.loads(line[len("LSBENCH ") :])
    raise SystemExit(f"Label Studio step {command!r} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")


def _session(token: str):
    import requests

    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    return session


def _check(response, expected: int, what: str):
    if response.status_code != expected:
        raise SystemExit(f"{what} answered {response.status_code}: {response.text[:800]}")
    return response


# --------------------------------------------------------------------------- the project and its tasks


def _text(i: int, rng: random.Random) -> str:
    """About 1,500 characters, like a GitHub issue body."""
    symptom = rng.choice(["hangs", "runs out of memory", "returns NaN loss", "is slow"])
    text = (
        f"**Describe the bug**\nTraining {symptom} with ZeRO stage 3 after the first allreduce on two nodes "
        f"(issue {i}).\n\n**To reproduce**\n"
        + "Launch with deepspeed --num_nodes 2 --num_gpus 8 train.py --deepspeed ds_config.json and wait. " * 10
        + "\n\n**Expected behavior**\nTraining continues.\n\n**System info**\nUbuntu 22.04, CUDA 12.1, torch 2.3."
    )
    return text[:1500]


def _load(session, base: str, n_tasks: int, batch: int) -> dict[str, float]:
    """The project, a data manager tab as the UI creates it, and the tasks through the import API."""
    phases: dict[str, float] = {}
    project = _check(
        session.post(f"{base}/api/projects/", json={"title": PROJECT_TITLE, "label_config": LABEL_CONFIG}, timeout=60),
        201,
        "creating the project",
    ).json()["id"]
    rng = random.Random(2025)
    annotated = n_tasks // 2
    started = time.perf_counter()
    with stopwatch() as elapsed:
        for start in range(0, n_tasks, batch):
            tasks = []
            for i in range(start, min(n_tasks, start + batch)):
                task: dict = {"data": {"text": _text(i + 1, rng)}}
                if i < annotated:
                    task["annotations"] = [
                        {
                            "result": [_result(rng)],
                            "ground_truth": False,  # the import's default is True, the UI's False
                            "lead_time": round(rng.uniform(5, 120), 1),
                        }
                    ]
                tasks.append(task)
            _check(
                session.post(f"{base}/api/projects/{project}/import", json=tasks, timeout=600),
                201,
                f"importing tasks {start + 1}-{start + len(tasks)}",
            )
            done = start + len(tasks)
            if done % (20 * batch) == 0 or done == n_tasks:
                print(f"imported {done:,} tasks in {time.perf_counter() - started:.0f} s", flush=True)
    phases["import API"] = elapsed[0]
    _default_tab(session, base, project)
    return phases


def _default_tab(session, base: str, project: int) -> None:
    """What the data manager does on a project's first visit: its columns, then a tab hiding the hidden-by-default."""
    columns = _check(session.get(f"{base}/api/dm/columns/", params={"project": project}, timeout=60), 200, "columns")
    hidden: dict[str, list[str]] = {"explore": [], "labeling": []}
    for column in columns.json()["columns"]:
        for mode, visible in (column.get("visibility_defaults") or {}).items():
            if not visible and mode in hidden:
                hidden[mode].append(f"{column['target']}:{column['id']}")
    data = {
        "title": "Default",
        "ordering": [],
        "type": "list",
        "target": "tasks",
        "filters": {"conjunction": "and", "items": []},
        "hiddenColumns": hidden,
    }
    _check(session.post(f"{base}/api/dm/views/", json={"project": project, "data": data}, timeout=60), 201, "the tab")


def _result(rng: random.Random) -> dict:
    return {
        "from_name": "category",
        "to_name": "text",
        "type": "choices",
        "value": {"choices": [rng.choice(CHOICES)]},
    }


def _analyze(database_url: str) -> None:
    """Fresh planner statistics, as autovacuum would leave them on a database that was not just bulk-loaded."""
    import psycopg2

    conn = psycopg2.connect(database_url)
    conn.autocommit = True
    try:
        with conn.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    finally:
        conn.close()


def _postgres_version(database_url: str) -> str:
    import psycopg2

    conn = psycopg2.connect(database_url)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SHOW server_version")
            return "PostgreSQL " + cursor.fetchone()[0].split()[0]
    finally:
        conn.close()


# --------------------------------------------------------------------------- timing over HTTP


def _list_params(state: dict, rng: random.Random, *, tab: bool = True) -> dict:
    """A random page of 100: as the data manager asks for it (with its tab), or with the project only."""
    pages = max(1, -(-state["tasks"] // 100))
    params = {"page": rng.randint(1, pages), "page_size": 100, "project": state["project"]}
    return {**params, "view": state["view"]} if tab else params


def _annotation(state: dict, rng: random.Random) -> dict:
    """What the labelling UI sends on Submit for a one-choice config."""
    return {
        "result": [{**_result(rng), "id": f"r{rng.randrange(10**9)}", "origin": "manual"}],
        "lead_time": round(rng.uniform(5, 60), 3),
        "project": str(state["project"]),
        "draft_id": 0,
        "parent_prediction": None,
        "parent_annotation": None,
    }


def _time_http(session, base: str, state: dict, n: int):
    """Round trips per kind and the X-Bench-Id of each timed request; also the task ids annotated here."""
    rng = random.Random(1)
    open_ids = list(state["open_task_ids"])
    rng.shuffle(open_ids)
    requests = TimedRequests(session, base, [key for key, *_ in KINDS], timeout=120)
    timed = requests.request
    used: list[int] = []

    for i in range(WARMUP + n):
        keep = i >= WARMUP
        for key, tab in (("list", True), ("list_plain", False)):
            page = timed(key, keep, "GET", "/api/tasks", 200, params=_list_params(state, rng, tab=tab)).json()
            if len(page["tasks"]) == 0:
                raise SystemExit("the task list came back empty")
        task_id = open_ids.pop()
        used.append(task_id)
        timed("annotate", keep, "POST", f"/api/tasks/{task_id}/annotations/", 201, json=_annotation(state, rng))
    state["open_task_ids"] = open_ids
    return requests.round_trips, requests.request_ids, used


def _count_queries(python: Path, package: Path, env: dict[str, str], token: str, state: dict, used: list[int]):
    """SQL queries of one request of each kind (the largest of three), in-process through Django's test client."""
    rng = random.Random(3)
    taken = set(used)
    task_ids = [task_id for task_id in state["open_task_ids"] if task_id not in taken][:3]
    args = {
        "token": token,
        "task_ids": task_ids,
        "list_params": [_list_params(state, rng) for _ in task_ids],
        "list_plain_params": [_list_params(state, rng, tab=False) for _ in task_ids],
        "annotation": _annotation(state, rng),
    }
    counts = _ls(python, package, env, "queries", args)
    if counts.pop("debug"):
        raise SystemExit("Label Studio ran with DEBUG on: check its environment (_ls_env)")
    return counts


# --------------------------------------------------------------------------- report


def _markdown(args, facts: dict, timings: dict, queries: dict) -> str:
    lines = [
        "| request | server median ms | server p95 ms | round trip median ms | round trip p95 ms | SQL queries "
        "| published figure: median ms (queries) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, what, published in KINDS:
        served, trip = stats(timings["server"][key]), stats(timings["round trip"][key])
        lines.append(
            f"| {what} | {served.median_ms:.1f} | {served.p95_ms:.1f} | {trip.median_ms:.1f} | {trip.p95_ms:.1f} "
            f"| {queries.get(key, '?')} | {published} |"
        )
    state = facts["state"]
    phases = "; ".join(f"{name} {seconds:.1f} s" for name, seconds in facts["phases"].items())
    loaded = "reused from a kept database" if facts["reused"] else "loaded in this run"
    text = [
        *lines,
        "",
        f"Label Studio {facts['version']} (PyPI, a scratch virtualenv), {facts['postgres']}, gunicorn with "
        f"{args.workers} workers, DEBUG off, token authentication. {state['tasks']:,} tasks ({loaded}), "
        f"{state['annotated']:,} of them annotated once before the run; {args.requests} timed requests of each "
        f"kind after {WARMUP} warm-up requests; load average (1 min) {facts['load'][0]:.2f} before and "
        f"{facts['load'][1]:.2f} after the timed requests. Server time is gunicorn's own measure of each request "
        f"(its access log); the round trip adds the client library and the loopback connection. SQL queries: "
        f"the largest of three requests of each kind, counted in-process (Django's test client, the same "
        f"settings and database). Setup: {phases}.",
    ]
    if facts["note"]:
        text += ["", facts["note"]]
    return "\n".join(text)


def _section(report: str) -> str:
    return "\n".join(
        [
            "Command (installs Label Studio 1.23 from PyPI into a scratch virtualenv outside the repository, "
            "~/.cache/taxonomist-bench/label-studio-1.23, and fills a scratch database `taxonomist_lsbench` "
            "that it drops at the end; `--keep` keeps it, `--reuse` reuses the venv and the kept database and "
            "skips the load):",
            "",
            "```",
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/label_studio_bench.py",
            "```",
            "",
            "What it measures: a Label Studio project with one Choices control (4 choices) over a Text field "
            "and 100,000 tasks of about 1,500 characters each, loaded through its import API, half of them "
            "annotated once. Label Studio runs under gunicorn with DEBUG off on 127.0.0.1, with its own "
            "settings (Sentry and usage analytics off). Timed: a page of 100 tasks as the data manager asks for "
            "it (`GET /api/tasks?page=K&page_size=100&view=V&project=P`, random pages, with the tab the UI "
            "creates first, which shows the default columns), the same without a tab "
            "(`GET /api/tasks?project=P&page=K&page_size=100`: fewer computed columns), and one annotation "
            "created on a task that had none (`POST /api/tasks/{id}/annotations/` with what the labelling UI "
            "sends), the same way as the Labelling section times Taxonomist. The "
            'last column is the figure the Labelling section compares with ("measured on a 2-core, 24 GB '
            'machine like ours with PostgreSQL").',
            "",
            f"Run on {today()}, {machine()}.",
            "",
            report,
        ]
    )


# --------------------------------------------------------------------------- under load, side by side

LOAD_SECTION = "## Under load: 20 raters, Taxonomist and Label Studio side by side"
LOAD_KINDS = ("next", "draft", "submit", "list")
LOAD_WHAT = {
    "next": ("GET next assignment", "GET /api/projects/{id}/next/"),
    "draft": ("PUT draft (autosave), twice", "POST /api/tasks/{id}/drafts, then PATCH /api/drafts/{id}/"),
    "submit": ("POST submit", "POST /api/tasks/{id}/annotations/ (with the draft)"),
    "list": ("GET 100 of my assignments", "GET /api/tasks?page=K&page_size=100&view=V&project=P"),
}
TARGET_RATIO = 10  # Label Studio's p95 over Taxonomist's

# The runs before the written one: a rerun replaces the table above this text, not the record of earlier runs.
RUNS_SO_FAR = """\
Every run so far, 0 errors on both sides each time (requests per second, Taxonomist against Label Studio; p95
over all requests): 2026-12-02, 114.2 against 20.7, 237.8 against 2,020.5 ms (8.5x), before a page of the
rater's rows asked reverse() once instead of once per row; 2026-12-02, 77.6 against 12.5, 367.2 against 3,631.9
ms (9.9x); 2026-12-03, the first with the rater's rows read with their columns as annotations, on a machine
shared with other jobs (load average up to 3.3), 95.4 against 11.6, 287.6 against 3,893.8 ms (13.5x);
2026-12-03, on a quieter machine, 99.8 against 19.1, 261.9 against 2,283.4 ms (8.7x). On 2026-12-06, on an
Intel Xeon machine of the same kind (faster for both sides), the code before the cache change (Django's own
Redis backend): 154.1 against 23.8, 162.9 against 1,560.5 ms (9.6x); after it (django-redis: one Redis client
per process instead of one per cache operation, three of them on every request): 166.3 against 23.6, 145.9
against 1,551.1 ms (10.6x); 171.8 against 24.7, 145.7 against 1,508.2 ms (10.4x, production install:
requirements.txt only, as the image has it; memory after the load 323 MiB RSS, 269 MiB PSS); 186.5 against
26.7, 130.3 against 1,549.7 ms (11.9x; memory 332 MiB RSS, 276 MiB PSS, development install). Later on
2026-12-06, on an AMD EPYC machine, with the web workers freezing the app they loaded (gunicorn.conf.py):
150.3 against 22.1, 166.0 against 1,783.0 ms (10.7x); 151.6 against 23.5, 166.2 against 1,638.8 ms (9.9x;
309 MiB RSS, 252 MiB PSS); production install, 142.9 against 23.1, 175.7 against 1,718.7 ms (9.8x; 302 MiB
RSS, 247 MiB PSS); production install with gunicorn's control socket off, 123.6 against 19.9, 212.0 against
2,100.5 ms (9.9x; 300 MiB RSS, 245 MiB PSS); 131.5 against 21.3, 195.9 against 1,797.5 ms (9.2x; 305 MiB RSS,
250 MiB PSS). The same machine without the freeze held 329 to 332 MiB RSS (273 to 275 MiB PSS) after the load.
On another AMD EPYC machine of the same kind, later that day: 116.6 against 16.3, 243.1 against 2,334.4 ms (9.6x;
308 MiB RSS, 251 MiB PSS), before the labels version became an ORM UPDATE; 84.4 against 14.0, 316.3 against
3,064.8 ms (9.7x; 305 MiB RSS, 250 MiB PSS); production install, 76.2 against 14.5, 371.4 against 2,836.9 ms
(7.6x; 300 MiB RSS, 245 MiB PSS). On an Intel Xeon machine later still, Taxonomist's raters first and then Label
Studio's: 122.2 against 20.2, 221.2 against 1,931.2 ms (8.7x; 308 MiB RSS, 251 MiB PSS); after the rater's rows
lost a join and the labelling page two statements, 100.7 against 20.0, 297.8 against 1,991.5 ms (6.7x), the
machine slower during Taxonomist's minute (the same code had served 122 requests a second an hour before).
From then on the sides take turns (two each of 30 s): 117.5 against 19.1, 231.6 against 2,256.2 ms (9.7x;
10.0x and 9.8x in the two turns); 87.7 against 15.5, 318.7 against 2,923.7 ms (9.2x; 9.8x and 8.8x; 308 MiB
RSS, 249 MiB PSS). On another Intel Xeon machine later that day: 115.8 against 17.9, 245.7 against 2,342.0 ms
(9.5x; 9.9x and 9.8x in the two turns; 307 MiB RSS, 248 MiB PSS). On an AMD EPYC machine later still: 124.2
against 19.2, 248.0 against 2,280.4 ms (9.2x; 10.2x and 8.7x; 311 MiB RSS, 249 MiB PSS); 139.6 against 22.4,
196.6 against 1,792.5 ms (9.1x; 10.1x and 8.8x; 306 MiB RSS, 248 MiB PSS); 117.9 against 16.9, 250.9 against
2,701.4 ms (10.8x; 10.6x and 12.1x; 308 MiB RSS, 249 MiB PSS), where the raters' client (requests) used 0.22 of a
core during Taxonomist's turns and 0.04 during Label Studio's. Until then the raters' threads sent through
requests; from here on through urllib3 (`bench._common.LeanClient`), the same requests on the wire for about half
the client's CPU, which it takes from the server being measured: the run above.
Taxonomist's throughput moves by 20% from run to run and Label Studio's with it; when the two sides ran one
after the other, the ratio moved with the machine. With 20 raters and no pause between requests, the 2 cores
are the limit (both servers, PostgreSQL, Redis and the 20 clients share them): each side's p95 is mostly
waiting for a CPU, so it follows its throughput."""


def _side_by_side(args) -> None:
    """The same raters' loop against Taxonomist and Label Studio, each under docker-compose's gunicorn settings,
    in one run: both servers up, the sides taking turns (see the section's text in _load_markdown)."""
    from bench.team_sqlite_bench import PASSWORD as RATER_PASSWORD
    from bench.team_sqlite_bench import build_study, rater_loop

    if not (args.cache_url.startswith("redis://") and args.broker_url.startswith("redis://")):
        raise SystemExit("--load needs --cache-url and --broker-url: two scratch Redis databases (they are emptied)")
    if args.cache_url == args.broker_url:
        raise SystemExit("--cache-url and --broker-url must name two different Redis databases")
    if args.turns < 1:
        raise SystemExit("--turns must be at least 1")
    server_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    sizing = compose_web_command()
    sides: dict[str, dict] = {}
    with ExitStack() as stack:
        taxonomist = scratch_database(
            vendor="postgresql", name=args.taxonomist_db_name, server_url=server_url, keep=args.keep
        )
        stack.callback(taxonomist.close)
        stack.callback(_flush_redis, args.cache_url, args.broker_url)
        django_setup(taxonomist.url, CACHE_URL=args.cache_url, CELERY_BROKER_URL=args.broker_url)
        with stopwatch() as elapsed:
            study_id, usernames, categories = build_study(args.tasks, args.raters)
            _analyze(taxonomist.url)
        from django.db import connections

        connections.close_all()
        _flush_redis(args.cache_url, args.broker_url)
        # One robot per rater sends far more than a person: the API's per-user throttle (600 a minute) is lifted.
        env = served_env(
            taxonomist.url, CACHE_URL=args.cache_url, CELERY_BROKER_URL=args.broker_url, API_THROTTLE_USER="1000/s"
        )
        base = stack.enter_context(gunicorn(env, args=sizing))
        sessions = {name: http_login(base, name, RATER_PASSWORD) for name in usernames}
        sides["Taxonomist"] = {
            "server": (base, sessions, rater_loop(study_id, categories, listing=True)),
            "build": f"study of {args.tasks:,} issues built in {elapsed[0]:.0f} s",
        }

        _, note = _install(args.venv, reuse=True)  # the venv of an earlier run if it holds Label Studio
        python = args.venv / "bin" / "python"
        package = _package_folder(python)
        keep = args.keep or args.reuse
        scratch = scratch_database(
            vendor="postgresql", name=args.db_name, server_url=server_url, keep=keep, reuse=args.reuse
        )
        stack.callback(scratch.close)
        data_dir = Path(tempfile.mkdtemp(prefix="lsbench-data-"))
        stack.callback(shutil.rmtree, data_dir, ignore_errors=True)
        ls_env = _ls_env(scratch.url, data_dir)
        setup = _ls(python, package, ls_env, "setup", {"email": EMAIL, "password": PASSWORD, "raters": args.raters})
        state = _ls(python, package, ls_env, "state", {"title": PROJECT_TITLE})
        reused = bool(state and state["tasks"] == args.tasks and state["view"])
        if state and not reused:
            raise SystemExit(
                f"the database {args.db_name} holds a project of {state['tasks']:,} tasks, not {args.tasks:,}"
            )
        app = (args.venv / "bin" / "gunicorn", package, "core.wsgi:application")
        with stopwatch() as elapsed:
            if not reused:
                with gunicorn(ls_env, workers=args.workers, app=app) as ls_base:
                    _load(_session(setup["token"]), ls_base, args.tasks, args.batch)
                state = _ls(python, package, ls_env, "state", {"title": PROJECT_TITLE})
            _analyze(scratch.url)
        # A fresh server for the load: its workers have not held an import's batches.
        ls_base = stack.enter_context(gunicorn(ls_env, app=app, args=sizing))
        ls_sessions = {f"rater{i}": _session(token) for i, token in enumerate(setup["rater_tokens"], 1)}
        done = "reused from a kept database" if reused else "loaded through its import API"
        sides["Label Studio"] = {
            "server": (ls_base, ls_sessions, _ls_loop(state)),
            "build": (
                f"project of {state['tasks']:,} tasks ({done}; {state['annotated']:,} annotated before the run) "
                f"ready in {elapsed[0]:.0f} s"
            ),
        }
        postgres = _postgres_version(scratch.url)
        _take_turns(sides, args.seconds, args.turns)
    report = _load_markdown(args, sides, sizing, setup["version"], note, postgres)
    print(report)
    for name, side in sides.items():
        if side["run"].errors:
            print(f"\n{name}, first errors:\n" + "\n".join(side["run"].errors[:10]))
    if not args.no_write:
        write_section(LOAD_SECTION, report)
        print("\nwritten to docs/benchmarks.md")


def _take_turns(sides: dict, seconds: float, turns: int) -> None:
    """Each side's raters work `seconds` in all, in `turns` turns taken alternately (the first side, the second,
    the first again ...): a machine whose speed drifts during the run slows both sides alike. Adds to each side
    its runs pooled (`run`), each turn's run (`turns`), the load average before each turn and the memory of its
    server after its last turn."""
    for side in sides.values():
        side.update(turns=[], load=[])
    for _ in range(turns):
        for side in sides.values():
            base, sessions, loop = side["server"]
            side["load"].append(os.getloadavg()[0])
            side["turns"].append(rater_load(base, sessions, loop, seconds / turns, LOAD_KINDS))
    for side in sides.values():
        side["run"] = LoadRun(kinds=LOAD_KINDS)
        for run in side["turns"]:
            side["run"].add(run)
        side["memory"] = gunicorn_memory(side["server"][0])


def _ls_loop(state: dict):
    """Label Studio's labelling stream as its UI drives it: the next task, a draft saved and saved again,
    the annotation submitted with that draft, then a page of 100 tasks in the data manager."""
    project = state["project"]

    def loop(request, rng: random.Random):
        task = request("next", "GET", f"/api/projects/{project}/next/")
        if task is None:
            return None
        draft = request(
            "draft", "POST", f"/api/tasks/{task['id']}/drafts", 201, json={"result": [_result(rng)], "lead_time": 3.0}
        )
        if draft is None:
            return None
        again = {"result": [_result(rng)], "lead_time": 6.0}
        if request("draft", "PATCH", f"/api/drafts/{draft['id']}/", json=again) is None:
            return None
        annotation = {**_annotation(state, rng), "draft_id": draft["id"]}
        url = f"/api/tasks/{task['id']}/annotations/?project={project}"
        submitted = request("submit", "POST", url, 201, json=annotation) is not None
        request("list", "GET", "/api/tasks", params=_list_params(state, rng))
        return submitted or None

    return loop


def _flush_redis(*urls: str) -> None:
    import redis

    for url in urls:
        try:
            redis.Redis.from_url(url).flushdb()
        except redis.RedisError as exc:
            raise SystemExit(f"the scratch Redis database {url} is not reachable ({exc})") from exc


def _memory_line(memory: list[tuple[int, bool, int, int]]) -> str:
    master = next((rss for _, is_master, rss, _ in memory if is_master), 0)
    workers = [rss for _, is_master, rss, _ in memory if not is_master]
    pss = sum(row[3] for row in memory)
    each = ", ".join(f"{rss / 1024:.0f}" for rss in workers)
    return (
        f"master {master / 1024:.0f} MiB + workers {each} MiB RSS = {(master + sum(workers)) / 1024:.0f} MiB; "
        f"PSS {pss / 1024:.0f} MiB"
    )


def _turns_text(args) -> str:
    if args.turns == 1:
        return "Taxonomist's raters worked first, then Label Studio's."
    return (
        f"The sides took turns, {args.turns} each of {args.seconds / args.turns:.0f} s (Taxonomist, Label Studio, "
        "Taxonomist, ...): a shared machine's speed drifts during a run, and taking turns lets the drift fall on "
        "both sides alike; the figures pool each side's turns."
    )


def _load_markdown(args, sides: dict, sizing: list[str], version: str, note: str, postgres: str) -> str:
    taxonomist, label_studio = sides["Taxonomist"], sides["Label Studio"]
    lines = [
        f"Run on {today()}, {machine()}, {postgres}, Label Studio {version} (PyPI, a scratch virtualenv).",
        "",
        "Command (two scratch PostgreSQL databases, dropped at the end, and two scratch Redis databases for "
        "Taxonomist's cache and broker, emptied before and after):",
        "",
        "```",
        "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/label_studio_bench.py \\",
        f"    --load --tasks {args.tasks} --cache-url {args.cache_url} --broker-url {args.broker_url}",
        "```",
        "",
        f"{args.raters} raters at once for {args.seconds:.0f} s against each application, both served by "
        f"gunicorn with docker-compose's web settings (`{' '.join(sizing)}`, sync workers), DEBUG off, on "
        f"127.0.0.1, both up for the whole run. {_turns_text(args)} Each rater, in a thread of its own, loops: "
        "the next issue, two autosaved drafts, the submit, and a page of 100 of its tasks. Taxonomist: the rater API "
        "over session authentication, the Redis cache and "
        "broker as docker-compose configures them (the agreement recomputation after a submit is queued, as there), "
        "two raters per issue, the per-user API throttle lifted (a robot per rater sends far more than 600 "
        "requests a minute). Label Studio: its labelling stream's endpoints as its UI calls them (token "
        "authentication), one annotation per task, the data manager's first tab for the list. Round trips are "
        "measured by the client threads on the same machine (each sends through urllib3 with its logged-in requests "
        "session's cookies and headers: the same requests on the wire for less of the CPU the servers need; the "
        "table gives what the client used); an error is any request that failed (no answer within "
        "30 s) or answered another status than the one expected (nothing is retried); requests without an answer "
        "are not in the percentiles, which flatters the side that had them.",
        "",
        f"Taxonomist: {taxonomist['build']}. Label Studio: {label_studio['build']}.",
        "",
        "| | " + " | ".join(sides) + " | Label Studio / Taxonomist |",
        "| --- | ---: | ---: | ---: |",
    ]

    def row(label: str, values: list, ratio: str = "") -> None:
        lines.append(f"| {label} | " + " | ".join(values) + f" | {ratio} |")

    runs = {name: side["run"] for name, side in sides.items()}
    row("errors", [f"**{len(run.errors)}**" for run in runs.values()])
    row("requests answered", [f"{len(run.all_round_trips()):,}" for run in runs.values()])
    throughput = {name: len(run.all_round_trips()) / run.seconds for name, run in runs.items()}
    row(
        "requests per second",
        [f"{value:.1f}" for value in throughput.values()],
        f"Taxonomist {throughput['Taxonomist'] / throughput['Label Studio']:.1f}x",
    )
    issues = {name: sum(run.submitted.values()) / run.seconds for name, run in runs.items()}
    row("issues submitted per second", [f"{value:.1f}" for value in issues.values()])
    ratios = {}
    for kind in ("all", *LOAD_KINDS):
        samples = {
            name: run.all_round_trips() if kind == "all" else run.round_trips[kind] for name, run in runs.items()
        }
        if not all(samples.values()):
            continue
        for q in (50, 95, 99):
            values = {name: percentile_ms(seconds, q) for name, seconds in samples.items()}
            ratio = values["Label Studio"] / values["Taxonomist"]
            ratios[(kind, q)] = ratio
            label = "all requests" if kind == "all" else kind
            row(f"{label} p{q} ms", [f"{value:.1f}" for value in values.values()], f"{ratio:.1f}x")
    if args.turns > 1:
        turn_ratios = [
            percentile_ms(ls.all_round_trips(), 95) / percentile_ms(ours.all_round_trips(), 95)
            for ours, ls in zip(sides["Taxonomist"]["turns"], sides["Label Studio"]["turns"], strict=True)
            if ours.all_round_trips() and ls.all_round_trips()
        ]
        row(
            "all requests p95 ms, each turn",
            [
                ", ".join(f"{percentile_ms(run.all_round_trips(), 95):.1f}" for run in side["turns"])
                for side in sides.values()
            ],
            ", ".join(f"{ratio:.1f}x" for ratio in turn_ratios),
        )
    row(
        "the raters' client: CPU seconds per second (1.0 is one core)",
        [f"{run.client_cpu_seconds / run.seconds:.2f}" for run in runs.values()],
    )
    for name, side in sides.items():
        row(
            f"load average (1 min) before each turn, {name}",
            [", ".join(f"{load:.2f}" for load in side["load"]) if other == name else "" for other in sides],
        )
    lines += [
        "",
        "What each kind is: "
        + "; ".join(f"{kind}: Taxonomist {ours}, Label Studio `{theirs}`" for kind, (ours, theirs) in LOAD_WHAT.items())
        + ".",
        "",
        "Memory after the load (from /proc): "
        + "; ".join(f"{name}: {_memory_line(side['memory'])}" for name, side in sides.items())
        + ".",
        "",
    ]
    errors = len(runs["Taxonomist"].errors)
    p95 = ratios.get(("all", 95), 0.0)
    lines.append(
        f"Goal: 0 errors and at least {TARGET_RATIO}x Label Studio at p95. Taxonomist answered with {errors} "
        f"error{'s' if errors != 1 else ''} and {p95:.1f}x Label Studio's p95 over all requests: "
        f"{'met' if errors == 0 and p95 >= TARGET_RATIO else 'NOT met'}."
    )
    busiest = max(load for side in sides.values() for load in side["load"])
    if busiest > (os.cpu_count() or 1):
        lines += [
            "",
            f"The load average was up to {busiest:.1f} on {os.cpu_count()} cores before a turn started (the turn "
            "just before it counts in it, and so would other jobs on the machine): the round trips include waiting "
            "for a CPU on both sides; the two sides took turns in the same run, so their ratio is the fairer figure.",
        ]
    lines += ["", RUNS_SO_FAR]
    if args.tasks != 100_000:
        lines += [
            "",
            f"Both sides ran on {args.tasks:,} issues (tasks) instead of 100,000, to keep the build within the "
            "time this shared machine allows; the rater's requests do not grow with the study (keyset pages, "
            "indexed next), Label Studio's list pages do.",
        ]
    if note:
        lines += ["", note]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
