"""The load runs' lean client sends what the logged-in requests.Session would send and reads the answer alike."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from bench._common import LeanClient


class Echo(BaseHTTPRequestHandler):
    """Answers every request with what it received: method, path with query, headers and body."""

    def _echo(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        seen = {
            "method": self.command,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": body.decode(),
        }
        status = 201 if self.command == "POST" else 200
        payload = json.dumps(seen).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = _echo

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def echo_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _session(base: str) -> requests.Session:
    session = requests.Session()
    session.cookies.set("sessionid", "abc123", domain="127.0.0.1", path="/")
    session.cookies.set("csrftoken", "tok", domain="127.0.0.1", path="/")
    session.headers.update({"X-CSRFToken": "tok", "Referer": f"{base}/", "Authorization": "Token xyz"})
    return session


# The headers both clients set themselves; the rest (the session's) must arrive alike.
TRANSPORT = {"content-length", "host", "connection", "accept-encoding", "user-agent", "accept"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/api/v1/studies/1/assignments/next/", {}),
        ("PUT", "/api/v1/annotations/7/draft/", {"json": {"values": {"symptom": [3]}, "note": "ü", "version": 2}}),
        ("POST", "/api/tasks/5/annotations/?project=1", {"json": {"result": [], "lead_time": 3.0}}),
        ("GET", "/api/tasks", {"params": {"page": 4, "page_size": 100, "fields": ["all", "id"]}}),
    ],
)
def test_the_lean_client_sends_what_the_session_sends(echo_server, method, path, kwargs):
    session = _session(echo_server)
    expected = session.request(method, echo_server + path, timeout=5, **kwargs).json()

    answer = LeanClient(echo_server, session).request(method, path, timeout=5, **kwargs)
    seen = answer.json()

    assert answer.status_code == (201 if method == "POST" else 200)
    assert (seen["method"], seen["path"], seen["body"]) == (expected["method"], expected["path"], expected["body"])
    assert json.loads(answer.text) == seen
    ours = {name: value for name, value in seen["headers"].items() if name not in TRANSPORT | {"cookie"}}
    theirs = {name: value for name, value in expected["headers"].items() if name not in TRANSPORT | {"cookie"}}
    assert ours == theirs
    assert sorted(seen["headers"]["cookie"].split("; ")) == sorted(expected["headers"]["cookie"].split("; "))
    # The same content negotiation: a server that compresses does so for both.
    assert seen["headers"]["accept-encoding"] == expected["headers"]["accept-encoding"]


def test_the_lean_client_refuses_what_it_does_not_send(echo_server):
    with pytest.raises(TypeError, match="data"):
        LeanClient(echo_server, _session(echo_server)).request("POST", "/x", timeout=5, data={"a": 1})
