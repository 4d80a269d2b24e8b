"""Helpers shared by the benchmarks: the machine, timing statistics, scratch databases, a served app, the report.

Nothing here imports Django at module level: a benchmark points DATABASE_URL at its scratch
database first and only then calls `django_setup()`.
"""

from __future__ import annotations

import json
import os
import platform
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_MD = ROOT / "docs" / "benchmarks.md"
WEB_CONFIG = "gunicorn.conf.py"  # gunicorn settings of Taxonomist's web service (docker-compose, the image)


# --------------------------------------------------------------------------- machine


def machine() -> str:
    """CPU model, cores, memory and Python version, for the report."""
    cpu = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f", {int(line.split()[1]) / 1024 / 1024:.1f} GiB RAM"
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores{memory}, Python {platform.python_version()}"


def today() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d}"


# --------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Stats:
    n: int
    median_ms: float
    p95_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float


def stats(seconds: Sequence[float]) -> Stats:
    """Median, nearest-rank 95th percentile, mean, min and max of durations given in seconds."""
    if not seconds:
        raise ValueError("no samples")
    ms = sorted(s * 1000 for s in seconds)
    rank = max(1, -(-95 * len(ms) // 100))  # nearest-rank: ceil(0.95 n)
    return Stats(
        n=len(ms),
        median_ms=statistics.median(ms),
        p95_ms=ms[rank - 1],
        mean_ms=statistics.fmean(ms),
        min_ms=ms[0],
        max_ms=ms[-1],
    )


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """with stopwatch() as elapsed: ... ; elapsed[0] is the duration in seconds."""
    box: list[float] = []
    start = time.perf_counter()
    try:
        yield box
    finally:
        box.append(time.perf_counter() - start)


# --------------------------------------------------------------------------- scratch databases


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at another database."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def _admin_connection(server_url: str):
    import psycopg2

    conn = psycopg2.connect(with_database(server_url, "postgres"))
    conn.autocommit = True  # CREATE/DROP DATABASE refuse to run inside a transaction
    return conn


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise SystemExit(f"database name {name!r} must be a plain lower-case identifier")


def postgres_recreate(server_url: str, name: str) -> str:
    """Drop and create a scratch PostgreSQL database; returns its URL."""
    _check_name(name)
    conn = _admin_connection(server_url)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            cursor.execute(f"CREATE DATABASE {name}")
    finally:
        conn.close()
    return with_database(server_url, name)


def postgres_drop(server_url: str, name: str) -> None:
    _check_name(name)
    conn = _admin_connection(server_url)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        conn.close()


@dataclass
class ScratchDatabase:
    """A database a benchmark may fill and throw away: PostgreSQL on a given server, or an SQLite file."""

    url: str
    vendor: str
    drop: object  # callable, no arguments

    def close(self) -> None:
        self.drop()


def postgres_exists(server_url: str, name: str) -> bool:
    _check_name(name)
    conn = _admin_connection(server_url)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            return cursor.fetchone() is not None
    finally:
        conn.close()


def scratch_database(
    *, vendor: str, name: str, server_url: str = "", keep: bool = False, reuse: bool = False
) -> ScratchDatabase:
    """A fresh scratch database; with `reuse` (PostgreSQL only) an existing one of that name is kept as it is."""
    if vendor == "postgresql":
        if not server_url.startswith(("postgres://", "postgresql://")):
            raise SystemExit(
                "Set DATABASE_URL to a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres"
            )
        if reuse and postgres_exists(server_url, name):
            return ScratchDatabase(with_database(server_url, name), vendor, lambda: None)
        url = postgres_recreate(server_url, name)
        return ScratchDatabase(url, vendor, (lambda: None) if keep else (lambda: postgres_drop(server_url, name)))
    directory = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    path = directory / f"{name}.sqlite3"

    def remove() -> None:
        if keep:
            print(f"kept {path}")
            return
        for file in directory.glob("*"):
            file.unlink()
        directory.rmdir()

    return ScratchDatabase(f"sqlite:///{path}", vendor, remove)


# --------------------------------------------------------------------------- Django and a served app


def served_env(database_url: str, **extra: str) -> dict[str, str]:
    """Environment for the app with DEBUG off, over plain HTTP on 127.0.0.1 (no TLS redirect, no secure cookies)."""
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "0",
            "SECRET_KEY": env.get("SECRET_KEY") or secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0",
            "STATIC_MANIFEST": "0",
            "LOG_LEVEL": "WARNING",
        }
    )
    env.update(extra)
    return env


def django_setup(database_url: str, **extra: str) -> None:
    """Configure this process like the served app (same settings, same database) and set Django up."""
    os.environ.update(served_env(database_url, **extra))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def gunicorn(
    env: dict[str, str],
    *,
    workers: int = 2,
    port: int | None = None,
    access_log: Path | None = None,
    app: tuple[Path, Path, str] | None = None,
    args: Sequence[str] | None = None,
) -> Iterator[str]:
    """Serve config.wsgi with gunicorn on 127.0.0.1; yields the base URL and stops the server afterwards.

    With `access_log`, gunicorn writes one line per request: the request's X-Bench-Id header and the
    server time it measured in microseconds (read them back with `server_times`). With `app`, another
    WSGI application is served instead: (its gunicorn binary, the folder to run it from, its
    "module:callable"), e.g. a third-party tool installed in a virtualenv of its own. `args` replaces
    `--workers N` with other gunicorn arguments (e.g. docker-compose's, from `compose_web_command`). Taxonomist
    runs with the hooks the web service has (WEB_CONFIG), another application without them.
    """
    port = port or free_port()
    binary, cwd, wsgi = app or (Path(sys.executable).with_name("gunicorn"), ROOT, "config.wsgi:application")
    sizing = list(args) if args is not None else ["--workers", str(workers)]
    if app is None:
        sizing += ["--config", WEB_CONFIG]
    command = [str(binary), wsgi, *sizing, "--bind", f"127.0.0.1:{port}"]
    command += ["--log-level", "warning", "--timeout", "120"]
    if access_log is not None:
        command += ["--access-logfile", str(access_log), "--access-logformat", "%({x-bench-id}i)s %(D)s"]
    process = subprocess.Popen(command, cwd=cwd, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


class TimedRequests:
    """Times requests of a session by kind: the round trip here, and an X-Bench-Id header on each kept request so
    the server's own time can be read back from its access log (`server_times`). Warm-up requests are not kept."""

    def __init__(self, session, base: str, kinds, *, timeout: float = 60):
        self.session, self.base, self.timeout = session, base, timeout
        self.round_trips: dict[str, list[float]] = {kind: [] for kind in kinds}
        self.request_ids: dict[str, list[str]] = {kind: [] for kind in kinds}

    def request(self, kind: str, keep: bool, method: str, url: str, expected: int = 200, **kwargs):
        request_id = f"{kind}-{len(self.request_ids[kind])}"
        headers = {"X-Bench-Id": request_id} if keep else {}
        start = time.perf_counter()
        response = self.session.request(method, self.base + url, headers=headers, timeout=self.timeout, **kwargs)
        elapsed = time.perf_counter() - start
        if response.status_code != expected:
            raise SystemExit(f"{method} {url} answered {response.status_code}: {response.text[:800]}")
        if keep:
            self.round_trips[kind].append(elapsed)
            self.request_ids[kind].append(request_id)
        return response

    def also_count_as(self, kind: str, source: str) -> None:
        """Count the last kept request of `source` under `kind` too (e.g. a sub-kind known from its answer)."""
        self.round_trips[kind].append(self.round_trips[source][-1])
        self.request_ids[kind].append(self.request_ids[source][-1])


def server_times(access_log: Path) -> dict[str, float]:
    """Server time in seconds per X-Bench-Id, from a gunicorn access log written by `gunicorn(access_log=...)`."""
    times: dict[str, float] = {}
    for line in access_log.read_text(encoding="utf-8").splitlines():
        request_id, _, micros = line.rpartition(" ")
        if request_id and request_id != "-":
            times[request_id] = int(micros) / 1e6
    return times


def wait_until_up(base: str, process: subprocess.Popen, timeout: float = 60) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with code {process.returncode}")
        try:
            if requests.get(f"{base}/healthz", timeout=2).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the server did not answer at {base} within {timeout:.0f} s")


def http_login(base: str, username: str, password: str):
    """A requests.Session logged in through the login form (CSRF token from the page)."""
    import requests

    session = requests.Session()
    page = session.get(f"{base}/accounts/login/", timeout=30)
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    if not match:
        raise SystemExit("no CSRF token on the login page")
    response = session.post(
        f"{base}/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": match.group(1)},
        headers={"Referer": f"{base}/accounts/login/"},
        allow_redirects=False,
        timeout=30,
    )
    if response.status_code != 302:
        raise SystemExit(f"login as {username} failed ({response.status_code})")
    session.headers["X-CSRFToken"] = session.cookies.get("csrftoken", "")
    session.headers["Referer"] = f"{base}/"
    return session


def database_version() -> str:
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SHOW server_version")
                return "PostgreSQL " + cursor.fetchone()[0].split()[0]
            if connection.vendor == "sqlite":
                cursor.execute("select sqlite_version()")
                return "SQLite " + cursor.fetchone()[0]
    except Exception:  # the report must not fail over a version string
        return connection.vendor
    return connection.vendor


# --------------------------------------------------------------------------- the report


def write_section(heading: str, body: str, *, path: Path = BENCHMARKS_MD) -> None:
    """Replace the section `heading` (a "## ..." line) in docs/benchmarks.md, or append it at the end."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    section = f"{heading}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    replaced, count = pattern.subn(lambda _: section + "\n", text)
    text = replaced if count else text.rstrip("\n") + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- raters at once


def percentile_ms(seconds: Sequence[float], q: int) -> float:
    """Nearest-rank q-th percentile of durations in seconds, in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return ms[max(1, -(-q * len(ms) // 100)) - 1]


@dataclass
class LoadRun:
    """What concurrent raters saw: round trips in seconds per kind, the errors, and the loops each finished."""

    kinds: tuple[str, ...]
    round_trips: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    submitted: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    # CPU time of the process running the raters' threads: the load generator shares the machine with the server.
    client_cpu_seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.round_trips = {kind: [] for kind in self.kinds}

    def all_round_trips(self) -> list[float]:
        return [t for kind in self.kinds for t in self.round_trips[kind]]

    def add(self, other: LoadRun) -> None:
        """Count another run of the same raters (a later turn) with this one."""
        for kind in self.kinds:
            self.round_trips[kind] += other.round_trips[kind]
        self.errors += other.errors
        for name, done in other.submitted.items():
            self.submitted[name] = self.submitted.get(name, 0) + done
        self.seconds += other.seconds
        self.client_cpu_seconds += other.client_cpu_seconds


@dataclass(frozen=True)
class LeanResponse:
    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self):
        return json.loads(self.content)


class LeanClient:
    """One rater's connection for the load runs: the logged-in requests.Session's cookies and headers, sent through
    urllib3 (which requests itself sends through), so the requests on the wire are the same.

    The raters' threads share the machine with the server they measure, and requests' own work per request (hooks,
    the cookie jar, merging settings) is CPU taken from that server: more from the faster side, which gets more
    requests through. Cookies set by an answer are not kept; the raters' loops need none.
    """

    def __init__(self, base: str, session) -> None:
        import urllib3

        url = urllib3.util.parse_url(base)
        self.pool = urllib3.HTTPConnectionPool(url.host, url.port, maxsize=1, retries=False)
        cookies = "; ".join(f"{cookie.name}={cookie.value}" for cookie in session.cookies)
        self.headers = {**session.headers, **({"Cookie": cookies} if cookies else {})}

    def request(self, method: str, path: str, *, timeout: float, **kwargs) -> LeanResponse:
        """As requests' Session.request for what the loops send: `json` (a body) and `params` (a query)."""
        headers, body, params = self.headers, None, kwargs.pop("params", None)
        if "json" in kwargs:
            headers = {**headers, "Content-Type": "application/json"}
            body = json.dumps(kwargs.pop("json"), allow_nan=False).encode()
        if kwargs:
            raise TypeError(f"LeanClient.request does not take {', '.join(kwargs)}")
        if params:
            path += ("&" if "?" in path else "?") + urlencode(params, doseq=True)
        answer = self.pool.request(method, path, body=body, headers=headers, timeout=timeout)
        return LeanResponse(answer.status, answer.data)


def rater_load(base: str, sessions: dict, loop, seconds: float, kinds: Sequence[str]) -> LoadRun:
    """Every rater (a logged-in requests.Session) in a thread of its own, all starting together, repeating
    `loop(request, rng)` until `seconds` pass or it returns False (the rater's queue is done); True counts one
    finished loop (an issue submitted), None a loop cut short by an error. `request(kind, method, url,
    expected=200, **kwargs)` times the round trip and answers the JSON body (or {} for an empty one), or None
    when the request failed or answered another status, which is counted as an error. Nothing is retried."""
    run = LoadRun(kinds=tuple(kinds))
    deadline = time.monotonic() + seconds
    barrier = threading.Barrier(len(sessions))

    def rater(name: str, session, seed: int) -> None:
        rng, done, client = random.Random(seed), 0, LeanClient(base, session)

        def request(kind: str, method: str, url: str, expected: int = 200, **kwargs):
            start = time.perf_counter()
            try:
                response = client.request(method, url, timeout=30, **kwargs)
            except Exception as exc:  # a refused or timed-out request is what a load benchmark counts
                with run.lock:
                    run.errors.append(f"{name} {method} {url}: {exc}")
                return None
            elapsed = time.perf_counter() - start
            with run.lock:
                run.round_trips[kind].append(elapsed)
                if response.status_code != expected:
                    run.errors.append(f"{name} {method} {url}: {response.status_code} {response.text[:200]}")
                    return None
            return response.json() if response.content else {}

        barrier.wait()
        while time.monotonic() < deadline:
            finished = loop(request, rng)
            if finished is False:
                break
            done += bool(finished)
        with run.lock:
            run.submitted[name] = done

    started, cpu = time.monotonic(), time.process_time()
    threads = [
        threading.Thread(target=rater, args=(name, session, i)) for i, (name, session) in enumerate(sessions.items())
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    run.seconds = time.monotonic() - started
    run.client_cpu_seconds = time.process_time() - cpu
    return run


# --------------------------------------------------------------------------- memory of a served app


def gunicorn_memory(base: str) -> list[tuple[int, bool, int, int]]:
    """(pid, is master, RSS KiB, PSS KiB) of the gunicorn serving `base`, read from /proc.

    RSS counts pages shared with the master (and the other workers) in every process; PSS splits them.
    """
    bind = base.removeprefix("http://").encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            if b"gunicorn" not in command or bind not in command:
                continue
            status = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line)
            rollup = (entry / "smaps_rollup").read_text().splitlines()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        pss = next((int(line.split()[1]) for line in rollup if line.startswith("Pss:")), 0)
        parent = int(status["PPid"].strip())
        found.append((int(entry.name), parent, int(status["VmRSS"].split()[0]), pss))
    pids = {pid for pid, *_ in found}
    return sorted(((pid, parent not in pids, rss, pss) for pid, parent, rss, pss in found), key=lambda row: not row[1])


# --------------------------------------------------------------------------- docker-compose's settings


def compose_web_command() -> list[str]:
    """The web service's gunicorn arguments from docker-compose.yml, its ${NAME:-default} variables at their
    defaults (or the environment's values), without the bind address and the access log (set per run) and
    without the config file (Taxonomist's own: `gunicorn` adds it where it serves Taxonomist)."""
    import shlex

    import yaml

    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]["command"]
    command = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: os.environ.get(m.group(1)) or m.group(2), command)
    args = shlex.split(command)[2:]  # past "gunicorn config.wsgi:application"
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--bind", "--access-logfile", "--config"):
            skip = True
        else:
            kept.append(arg)
    return kept
