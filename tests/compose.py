"""docker-compose's services run here, without Docker: their commands and environment read from docker-compose.yml
and the Dockerfile, and each started as a process of its own with its log in a file (images cannot be pulled on the
test machines). Used by the compose smoke test and the web service's gunicorn test."""

import os
import re
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
STOP_GRACE_SECONDS = 10  # `docker compose stop`: SIGTERM, then SIGKILL after the service's grace period
START_SECONDS = 180  # the machine is shared: allow for a slow start


# --------------------------------------------------------------------------- reading compose and the Dockerfile


def interpolate(value: str, variables: dict[str, str]) -> str:
    """compose's ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error} and $$."""

    def one(match: re.Match) -> str:
        name, operator, word = match.group(1), match.group(2) or "", match.group(3) or ""
        value = variables.get(name)
        empty = value is None or (operator.startswith(":") and value == "")
        if operator.endswith("?") and empty:
            raise AssertionError(f"compose refuses to start: {name} is unset ({word})")
        if operator.endswith("-") and empty:
            return word
        return value or ""

    text = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}", one, value.replace("$$", "\0"))
    return text.replace("\0", "$")


def read_env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name.strip()] = value.split(" #", 1)[0].strip()
    return values


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(instruction, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, arguments = line.partition(" ")
            found.append((instruction.upper(), arguments.strip()))
    return found


def image_env() -> dict[str, str]:
    env = {}
    for instruction, arguments in dockerfile_instructions():
        if instruction == "ENV":
            env.update(part.split("=", 1) for part in shlex.split(arguments))
    return env


def compose_services(variables: dict[str, str]) -> dict[str, dict]:
    """The services of docker-compose.yml, anchors merged, variables interpolated."""

    def walk(node):
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return interpolate(node, variables) if isinstance(node, str) else node

    return walk(yaml.safe_load((ROOT / "docker-compose.yml").read_text()))["services"]


# --------------------------------------------------------------------------- a service as a process


class Service:
    def __init__(self, name: str, args: list[str], env: dict[str, str], logs: Path):
        self.name, self.log = name, logs / f"{name}.log"
        self._output = self.log.open("wb")
        self.process = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=self._output, stderr=subprocess.STDOUT, start_new_session=True
        )

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> float:
        """SIGTERM to the service's process (compose's PID 1); seconds until it exited (fails after the grace)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{self.name} did not stop within {STOP_GRACE_SECONDS} s of SIGTERM\n{self.tail()}")
        return time.monotonic() - started

    def kill(self) -> None:
        """Only this service's own process group, whatever is left of it."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self._output.close()

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self) -> str:
        return f"--- {self.name} log ---\n{self.text()[-4000:]}"


def run_once(name: str, args: list[str], env: dict[str, str], logs: Path, timeout: float) -> None:
    service = Service(name, args, env, logs)
    try:
        service.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name} did not finish within {timeout:.0f} s\n{service.tail()}")
    finally:
        service.kill()
    assert service.process.returncode == 0, f"{name} exited with {service.process.returncode}\n{service.tail()}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(what: str, check, services: list[Service], timeout: float = START_SECONDS):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for service in services:
            if not service.running():
                pytest.fail(
                    f"{service.name} exited ({service.process.returncode}) while waiting: {what}\n" + service.tail()
                )
        answer = check()
        if answer:
            return answer
        time.sleep(0.5)
    pytest.fail(f"{what}: not within {timeout:.0f} s\n" + "\n".join(service.tail() for service in services))
