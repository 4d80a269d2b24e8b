"""`manage.py runserver` (what `make run` serves with) answers without Nagle's delay on its connections."""

import socket
import threading

from django.core.management import get_commands, load_command_class
from django.core.servers.basehttp import WSGIRequestHandler

from core.management.commands.runserver import NoDelayWSGIServer


def test_runserver_is_ours_and_still_serves_static_files():
    assert get_commands()["runserver"] == "core"
    command = load_command_class("core", "runserver")
    assert command.server_cls is NoDelayWSGIServer
    parser = command.create_parser("manage.py", "runserver")
    assert parser.parse_args(["--nostatic"]).use_static_handler is False  # staticfiles' runserver underneath


def test_each_accepted_connection_has_nagle_off():
    server = NoDelayWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
    accepted: list[socket.socket] = []
    thread = threading.Thread(target=lambda: accepted.append(server.get_request()[0]))
    thread.start()
    client = socket.create_connection(server.server_address, timeout=5)
    thread.join(timeout=5)
    try:
        assert accepted and accepted[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        client.close()
        for connection in accepted:
            connection.close()
        server.server_close()
