"""The web service's gunicorn runs the hooks of gunicorn.conf.py: each worker, once it has loaded the app, freezes
it out of the garbage collector's count (why: gunicorn.conf.py; what it saves: docs/benchmarks.md, the load
section)."""

import json
import os
import re
import shlex
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.compose import (
    ROOT,
    Service,
    compose_services,
    dockerfile_instructions,
    free_port,
    read_env_file,
    wait_for,
)

CONFIG = ["--config", "gunicorn.conf.py"]
FROZEN = re.compile(r"Worker (\d+) loaded the app: (\d+) objects frozen")


def _has_config(args: list[str]) -> bool:
    return any(args[i : i + 2] == CONFIG for i in range(len(args) - 1))


def test_compose_and_the_image_start_gunicorn_with_the_hooks():
    web = compose_services(read_env_file(ROOT / ".env.example"))["web"]["command"]
    assert shlex.split(web)[0] == "gunicorn" and _has_config(shlex.split(web)), web
    (cmd,) = [args for instruction, args in dockerfile_instructions() if instruction == "CMD"]
    assert _has_config(json.loads(cmd)), cmd  # the exec form: a JSON array of strings


@pytest.fixture
def served(tmp_path):
    """gunicorn as the web service runs it (two workers), on a scratch SQLite file and a free port."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": "gunicorn-hooks-test-not-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CACHE_URL": "",
        "TAXONOMIST_VAR_DIR": str(tmp_path / "var"),
        "HOME": str(tmp_path),  # where gunicorn would put its control socket (.gunicorn/gunicorn.ctl)
    }
    env.pop("XDG_RUNTIME_DIR", None)
    binary = str(Path(sys.executable).with_name("gunicorn"))
    port = free_port()
    args = [binary, "config.wsgi:application", *CONFIG, "--bind", f"127.0.0.1:{port}", "--workers", "2"]
    service = Service("web", args, env, tmp_path)
    try:
        yield service, port
    finally:
        service.kill()


def test_each_worker_freezes_the_app_it_loaded_and_no_control_socket_is_opened(served, tmp_path):
    service, port = served
    booted = wait_for("both workers booted", lambda: len(FROZEN.findall(service.text())) == 2, [service], timeout=60)
    assert booted
    for pid, frozen in FROZEN.findall(service.text()):
        # The app is about a hundred thousand objects: settings, apps, the admin, every view of the URLconf.
        assert int(frozen) > 50_000, (pid, frozen)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as health:
        assert json.load(health)["status"] == "ok", service.tail()
    assert not list(tmp_path.rglob("*.ctl")), "gunicorn opened its control socket"
    assert service.stop() < 10
    assert "Traceback" not in service.text(), service.tail()
