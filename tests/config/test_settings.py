"""Settings come from the environment, and production settings pass Django's deployment checks."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x7#k2!p9-q" * 6,
    "ALLOWED_HOSTS": "taxonomist.example.org",
    "DATABASE_URL": "sqlite:///:memory:",
}


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    # Start from a clean slate: the test settings put relaxed SECURE_* values into os.environ.
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DJANGO_SETTINGS_MODULE", "DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
        and not k.startswith(("SECURE_", "SESSION_", "CSRF_"))
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_variables():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_a_malformed_boolean_is_refused_with_its_name():
    result = run_manage("check", env={**PRODUCTION_ENV, "DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def test_debug_is_off_unless_asked_for():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "DEBUG"}
    result = run_manage("shell", "-c", "from django.conf import settings; print(settings.DEBUG)", env=env)
    assert result.stdout.strip().splitlines()[-1] == "False", result.stderr


def _session_engine(env: dict[str, str]) -> str:
    result = run_manage("shell", "-c", "from django.conf import settings; print(settings.SESSION_ENGINE)", env=env)
    return result.stdout.strip().splitlines()[-1]


def test_sessions_go_through_the_cache_only_when_it_is_shared():
    # A shared (Redis) cache saves every request its session query; a per-process cache would let a
    # logout in one worker leave the session alive in the others, so then sessions stay in the database.
    assert _session_engine({**PRODUCTION_ENV, "CACHE_URL": "redis://127.0.0.1:6379/1"}).endswith(".cached_db")
    assert _session_engine(PRODUCTION_ENV) == "django.contrib.sessions.backends.db"


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "SECRET_KEY"}
    result = run_manage("check", env={**env, "TAXONOMIST_VAR_DIR": str(tmp_path)})
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr
    assert not (tmp_path / "secret_key").exists(), "no key made up per replica"


def test_the_embedded_default_keeps_making_its_own_key(tmp_path):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "SECRET_KEY"}
    result = run_manage("check", env={**env, "DEBUG": "1", "TAXONOMIST_VAR_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "secret_key").read_text()) >= 50


def test_compose_migrates_once_before_the_app_starts():
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert "migrate" in services["migrate"]["command"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "beat"):
        assert "migrate" not in services[name]["command"], f"{name} must not migrate on start"
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert services["web"]["environment"]["SECRET_KEY"].startswith("${SECRET_KEY:?")


def test_the_shared_cache_has_connect_and_read_timeouts():
    # Without them a hung or lost Redis would hold every request for the system's TCP timeout.
    code = (
        "from django.conf import settings; o = settings.CACHES['default']['OPTIONS']; "
        "print(o['SOCKET_CONNECT_TIMEOUT'], o['SOCKET_TIMEOUT'])"
    )
    result = run_manage("shell", "-c", code, env={**PRODUCTION_ENV, "CACHE_URL": "redis://127.0.0.1:6379/1"})
    connect, read = (float(value) for value in result.stdout.strip().splitlines()[-1].split())
    assert 0 < connect <= 5 and 0 < read <= 5, result.stderr
