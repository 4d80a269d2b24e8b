"""`runserver` (the one `make run` uses, static files included) with Nagle's algorithm off on each connection.

The development server writes the status line, the headers and the body of an answer in separate sends.
With Nagle's algorithm on, a later send waits until the client acknowledges the earlier one, and clients
delay that acknowledgement (about 40 ms on Linux): every answer of `make run` arrived some 40 ms late.
gunicorn, which serves the production setup, turns the algorithm off itself.
"""

import socket

from django.contrib.staticfiles.management.commands.runserver import Command as StaticFilesRunserver
from django.core.servers.basehttp import WSGIServer


class NoDelayWSGIServer(WSGIServer):
    def get_request(self):
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


class Command(StaticFilesRunserver):
    server_cls = NoDelayWSGIServer
