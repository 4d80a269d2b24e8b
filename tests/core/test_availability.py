"""Which errors mean a part is unavailable, and the 500 handler answering them 503 (errors outside any view)."""

import pytest
import redis
from django.db import OperationalError
from django.test import RequestFactory

from core.api import server_error
from core.availability import CACHE, DATABASE, unavailable_part


@pytest.mark.parametrize(
    ("error", "part"),
    [
        (OperationalError("database is locked"), DATABASE),
        (redis.exceptions.ConnectionError("Connection refused"), CACHE),
        (redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"), CACHE),
        (redis.exceptions.TimeoutError("Timeout reading from socket"), CACHE),
        (redis.exceptions.ResponseError("WRONGTYPE"), None),  # a command error is a bug, not an outage
        (RuntimeError("a bug"), None),
        (None, None),
    ],
)
def test_unavailable_part(error, part):
    assert unavailable_part(error) == part


def _handled(path: str, error: Exception):
    request = RequestFactory().get(path)
    try:
        raise error
    except Exception:  # Django calls the 500 handler inside its own except block, as here
        return server_error(request)


def test_the_500_handler_answers_a_cache_outage_503_with_the_api_error_body():
    response = _handled("/api/v1/studies/", redis.exceptions.ConnectionError("Connection refused"))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert b'"code": "unavailable"' in response.content


def test_the_500_handler_answers_a_database_outage_with_the_503_page():
    response = _handled("/studies/", OperationalError("could not connect to server"))
    assert response.status_code == 503
    assert b"The database is busy" in response.content


@pytest.mark.django_db
def test_the_500_handler_still_answers_a_bug_500():
    response = _handled("/api/v1/studies/", RuntimeError("a bug"))
    assert response.status_code == 500
    assert b'"code": "server_error"' in response.content
