"""Schemathesis against our own schema: every operation, every default check (no server error, only
documented status codes, content types, headers and bodies; valid requests accepted, invalid ones refused).

Bounded (a few examples per operation) so the suite stays fast; requests go to the WSGI app in-process,
never to the network. Clients authenticate with real tokens: reads as the study owner (who may read
the most), writes as a rater with open work. Generated ids are mostly mapped onto existing objects so
the checks reach the code behind the 404s.
"""

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from config.wsgi import application
from tests.api.conftest import build_api_world

MAX_EXAMPLES = 12
# The all-checks run below covers every operation in positive and negative mode plus schemathesis' coverage
# phase (the boundaries of every documented parameter); 6 generated examples per operation keep it near two
# minutes on two cores.
FUZZ_EXAMPLES = 6
RATER_WRITES = ("/api/v1/annotations/{id}/draft/", "/api/v1/annotations/{id}/submit/")

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
reads = schema.include(method="GET")
writes = schema.include(path=list(RATER_WRITES))


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Requests go through the WSGI app, whose request signals would close the test's database
    connection (mid-transaction on PostgreSQL); Django's own test client unhooks them the same way."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def data(users, db):
    return build_api_world(users)


def _aim(case, data) -> None:
    """Point most generated ids and slugs at objects that exist (the rest keep exploring 404s)."""
    params = case.path_parameters or {}
    resource = case.path.split("/")[3] if case.path.count("/") > 3 else ""
    if isinstance(params.get("id"), int) and params["id"] % 4 != 1 and data.ids.get(resource):
        choices = data.ids[resource]
        params["id"] = choices[params["id"] % len(choices)]
    if resource == "public" and isinstance(params.get("slug"), str) and len(params["slug"]) % 4 != 1:
        params["slug"] = data.slug


def run(case, data, token: str) -> None:
    _aim(case, data)
    case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=[not_a_server_error])


@pytest.mark.django_db
@reads.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_get_endpoints_never_fail_on_the_server(case, data):
    run(case, data, data.owner)


@pytest.mark.django_db
@writes.parametrize()
@settings(max_examples=MAX_EXAMPLES * 2, deadline=None, suppress_health_check=list(HealthCheck))
def test_rater_writes_never_fail_on_the_server(case, data):
    run(case, data, data.rater)


everything = schema.include(path_regex=".*")


def _token_for(case, data) -> str:
    """The rater's token for the rater's own operations (annotations, assignments), else the owner's."""
    return data.rater if "/annotations/" in case.path or "/assignments/" in case.path else data.owner


# Every default check of schemathesis: no server error, only documented status codes, content types and
# headers, every answer conforming to its schema, schema-valid requests accepted, invalid ones refused.
@pytest.mark.django_db
@everything.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_passes_every_default_check(case, data):
    """Every API operation (reads and writes) answers as the schema documents it, under every default check."""
    _aim(case, data)
    case.call_and_validate(headers={"Authorization": f"Token {_token_for(case, data)}"})
