"""What every docker-compose service runs, run here: images cannot be pulled on the test machines.

The commands and the environment are read from docker-compose.yml and the Dockerfile (so a change there is
tested here), with the image's build step that the app needs at run time (collectstatic) and the `.env` the
README asks for (`.env.example`). What compose would find elsewhere is pointed at this machine: the `db`
service at a scratch PostgreSQL database the test creates and drops, the `redis` service at the tests' Redis
database (broker and cache share it here), the container's /app folder at a temporary one (the code runs from
the checkout), the web port at a free port on 127.0.0.1. Then, as `docker compose up` would: the one-shot
`migrate` service must succeed; `web`, `worker` and `beat` start; the web service's own healthcheck passes;
the first user is made as the README says (`createsuperuser`); a file import uploaded through the Imports page,
as a browser behind the TLS proxy sends it, is finished by the worker; beat's job reaper reaches the worker
through the broker; SIGTERM (`docker compose stop`) ends every service with exit code 0 within compose's grace
period, and no log holds a traceback.

compose's DATABASE_URL is PostgreSQL, so this test needs PostgreSQL (it skips on SQLite runs).
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from annotator.jobs import FILE_IMPORT_TASK, REAP_TASK
from tests.annotator.importers.file_records import rest_issue
from tests.compose import (
    ROOT,
    START_SECONDS,
    Service,
    compose_services,
    dockerfile_instructions,
    free_port,
    image_env,
    read_env_file,
    run_once,
    wait_for,
)
from tests.redis_server import TEST_REDIS_URL, redis_or_skip

pytestmark = [pytest.mark.celery_worker, pytest.mark.postgres]

APP_DIR = "/app"  # the image's WORKDIR: the code there is this checkout, anything else a temporary folder
ISSUES = 5
# .env: the README's `cp .env.example .env`, plus a reaper every second so that beat's work shows within the test.
ENV_OVERRIDES = {"JOB_REAPER_SECONDS": "1"}


# --------------------------------------------------------------------------- pointing compose at this machine


class Machine:
    """Where compose's names lead here: the db and redis services, the container's /app, the web port."""

    def __init__(self, *, database_url: str, redis_url: str, app_dir: Path, port: int):
        self.database_url, self.redis_url, self.app_dir, self.port = database_url, redis_url, app_dir, port

    def path(self, text: str) -> str:
        return re.sub(rf"(?<![\w/]){re.escape(APP_DIR)}(?=/|$)", str(self.app_dir), text)

    def value(self, text: str) -> str:
        parts = urlsplit(text)
        if parts.scheme.startswith("postgres") and parts.hostname == "db":
            return self.database_url
        if parts.scheme == "redis" and parts.hostname == "redis":
            return self.redis_url
        return self.path(text)

    def environment(self, service: dict, env_file: dict[str, str]) -> dict[str, str]:
        """What the container's process sees: the image's ENV, then env_file, then environment."""
        env = {name: self.value(value) for name, value in image_env().items()}
        env.update(env_file)
        declared = service.get("environment", {})
        if isinstance(declared, list):
            declared = dict(item.split("=", 1) for item in declared)
        env.update({name: self.value(str(value)) for name, value in declared.items()})
        # The image's python with the project's packages: this virtualenv's binaries come first.
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}/usr/local/bin:/usr/bin:/bin"
        env["HOME"] = str(self.app_dir)
        return env

    def command(self, command) -> list[str]:
        args = shlex.split(command) if isinstance(command, str) else list(command)
        args = [self.path(arg) for arg in args]
        for i, arg in enumerate(args):
            if arg == "--bind":  # the container's 0.0.0.0:8000, published by compose: a free port here
                args[i + 1] = f"127.0.0.1:{self.port}"
        return args

    def healthcheck(self, service: dict) -> list[str]:
        test = service["healthcheck"]["test"]
        assert test[0] == "CMD", test
        container_port = service["ports"][0].rsplit(":", 1)[1]
        return [arg.replace(f"127.0.0.1:{container_port}", f"127.0.0.1:{self.port}") for arg in test[1:]]


# --------------------------------------------------------------------------- processes


# --------------------------------------------------------------------------- a browser behind the TLS proxy


class Browser:
    """Requests as the TLS-terminating proxy forwards them: the public host name, X-Forwarded-Proto https.

    Cookies are kept here: the app marks them Secure, which an HTTP client library would not send over the
    plain-HTTP hop between the proxy and gunicorn."""

    def __init__(self, base: str, host: str):
        import requests

        self.base, self.host, self.cookies = base, host, {}
        self.http = requests.Session()
        self.http.trust_env = False

    def request(self, method: str, path: str, **kwargs):
        headers = {
            "Host": self.host,
            "X-Forwarded-Proto": "https",
            "Referer": f"https://{self.host}{path}",
            "Cookie": "; ".join(f"{name}={value}" for name, value in self.cookies.items()),
            **kwargs.pop("headers", {}),
        }
        response = self.http.request(
            method, self.base + path, headers=headers, allow_redirects=False, timeout=30, **kwargs
        )
        self.cookies.update({cookie.name: cookie.value for cookie in response.cookies})
        self.http.cookies.clear()
        return response

    def csrf(self, page) -> str:
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert match, f"no CSRF token in {page.url} ({page.status_code})"
        return match.group(1)


# --------------------------------------------------------------------------- scratch resources


def _server_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/postgres"


def _admin(sql: str) -> None:
    import psycopg2

    conn = psycopg2.connect(_server_url())
    conn.autocommit = True  # CREATE/DROP DATABASE refuse to run in a transaction
    try:
        with conn.cursor() as cursor:
            cursor.execute(sql)
    finally:
        conn.close()


@pytest.fixture
def scratch_database():
    """A database of its own on the tests' PostgreSQL server (not the test database: compose migrates it)."""
    if connection.vendor != "postgresql":
        pytest.skip("docker-compose runs the app on PostgreSQL: this test needs PostgreSQL")
    name = re.sub(r"[^a-z0-9_]", "_", f"{connection.settings_dict['NAME']}_smoke".lower())[:63]
    _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    _admin(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(_server_url())._replace(path=f"/{name}"))
    finally:
        _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def scratch_redis():
    redis_or_skip(TEST_REDIS_URL)
    import redis

    client = redis.Redis.from_url(TEST_REDIS_URL)
    client.flushdb()  # the tests' own Redis database: queues and cache keys of earlier runs
    yield TEST_REDIS_URL
    client.flushdb()


# --------------------------------------------------------------------------- the test


def test_the_compose_services_start_import_through_the_worker_and_stop_cleanly(
    scratch_database, scratch_redis, tmp_path
):
    app_dir, logs = tmp_path / "app", tmp_path / "logs"
    app_dir.mkdir()
    logs.mkdir()
    env_file = {**read_env_file(ROOT / ".env.example"), **ENV_OVERRIDES}
    services = compose_services(env_file)
    assert {"migrate", "web", "worker", "beat"} <= set(services), sorted(services)
    here = Machine(database_url=scratch_database, redis_url=scratch_redis, app_dir=app_dir, port=free_port())
    env = {name: here.environment(services[name], env_file) for name in ("migrate", "web", "worker", "beat")}
    assert all(e["DATABASE_URL"] == scratch_database for e in env.values()), "compose names another database"

    # The image's build step the app needs at run time: static files with their manifest (DEBUG is off) and the
    # var folder; not the chown to the image's user.
    (build,) = [
        args for instruction, args in dockerfile_instructions() if instruction == "RUN" and "collectstatic" in args
    ]
    steps = [step.strip() for step in build.split("&&") if not step.strip().startswith("chown ")]
    run_once("build", ["sh", "-c", here.path(" && ".join(steps))], env["web"], logs, timeout=START_SECONDS)
    assert (Path(env["web"]["STATIC_ROOT"]) / "staticfiles.json").exists(), "collectstatic wrote no manifest"
    for name in ("web", "worker", "beat"):  # the volumes' mount points
        for volume in services[name].get("volumes", []):
            Path(here.path(volume.split(":")[1])).mkdir(parents=True, exist_ok=True)

    # web, worker and beat start once migrate has completed successfully.
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    run_once("migrate", here.command(services["migrate"]["command"]), env["migrate"], logs, timeout=START_SECONDS)
    running = [
        Service(name, here.command(services[name]["command"]), env[name], logs) for name in ("web", "worker", "beat")
    ]
    try:
        web, worker, beat = running
        base = f"http://127.0.0.1:{here.port}"

        def healthy() -> bool:
            probe = subprocess.run(here.healthcheck(services["web"]), cwd=ROOT, env=env["web"], capture_output=True)
            return probe.returncode == 0

        wait_for("the web service's healthcheck", healthy, running)
        wait_for("the worker ready", lambda: " ready." in worker.text(), running)

        # The first user, as the README says: `docker compose exec web python manage.py createsuperuser`.
        password = "smoke-test-password-not-secret"
        run_once(
            "createsuperuser",
            ["python", "manage.py", "createsuperuser", "--noinput", "--username", "smoke", "--email", "s@example.org"],
            {**env["web"], "DJANGO_SUPERUSER_PASSWORD": password},
            logs,
            timeout=START_SECONDS,
        )

        browser = Browser(base, env_file["ALLOWED_HOSTS"].split(",")[0].strip())
        assert browser.request("GET", "/healthz").json() == {"status": "ok", "database": "ok"}
        assert browser.request("GET", "/imports/").status_code == 302  # signed out: to the login page
        login = browser.request("GET", "/accounts/login/")
        signed_in = browser.request(
            "POST",
            "/accounts/login/",
            data={"username": "smoke", "password": password, "csrfmiddlewaretoken": browser.csrf(login)},
        )
        assert signed_in.status_code == 302, signed_in.text[:500]
        imports = browser.request("GET", "/imports/")
        assert imports.status_code == 200
        upload = json.dumps([rest_issue(n) for n in range(1, ISSUES + 1)]).encode()
        sent = browser.request(
            "POST",
            "/imports/",
            data={"csrfmiddlewaretoken": browser.csrf(imports), "repo": ""},
            files={"upload": ("issues.json", upload, "application/json")},
        )
        assert sent.status_code == 302, sent.text[:500]
        job_path = urlsplit(sent.headers["Location"]).path
        assert re.fullmatch(r"/imports/\d+/", job_path), job_path

        def finished() -> dict | None:
            status = browser.request("GET", f"{job_path}status").json()
            return status if status["status"] not in ("pending", "running") else None

        status = wait_for("the import job done by the worker", finished, running)
        assert status["status"] == "done", status
        assert status["counts"]["created"] == ISSUES, status
        assert re.search(rf"Task {re.escape(FILE_IMPORT_TASK)}\[[^\]]+\] succeeded", worker.text()), worker.tail()
        wait_for(
            "beat's job reaper run by the worker",
            lambda: re.search(rf"Task {re.escape(REAP_TASK)}\[[^\]]+\] succeeded", worker.text()),
            running,
        )
        assert "Sending due task jobs-reap" in beat.text()
        assert '"POST /imports/ HTTP/1.1" 302' in web.text(), web.tail()  # gunicorn's access log, to stdout
        assert "objects frozen" in web.text(), web.tail()  # gunicorn.conf.py's hook ran in the workers

        for service in running:  # `docker compose stop`
            service.stop()
            assert service.process.returncode == 0, (
                f"{service.name} exited {service.process.returncode}\n{service.tail()}"
            )
        assert list((app_dir / "var").glob("celerybeat-schedule*")), "beat kept no schedule in the var folder"
        for service in running:
            assert "Traceback" not in service.text(), service.tail()
    finally:
        for service in running:
            service.kill()
