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
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    TimedRequests,
    gunicorn,
    machine,
    scratch_database,
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
    answer = {"token": user.auth_token.key, "version": label_studio.__version__}

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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
