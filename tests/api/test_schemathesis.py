"""Schemathesis against our own schema: every operation, every default check (no server error, only
documented status codes, content types, headers and bodies; valid requests accepted, invalid ones refused).

Bounded (a few examples per operation) so the suite stays fast; requests go to the WSGI app in-process,
never to the network. Clients authenticate with real tokens: first as the role that may call each operation
(the rater for annotations and assignments, the study owner, who may read the most, for the rest), then
as an adjudicator and as a signed-in user in no study. Generated ids are mostly mapped onto existing objects so
the checks reach the code behind the 404s.
"""

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation

from config.wsgi import application
from tests.api.conftest import build_api_world

# Every operation runs in positive and negative mode: for the role that may call it, 6 generated examples
# plus schemathesis' coverage phase (the boundaries of every documented parameter, not bound by this
# number); for the other roles 3 examples. That keeps the module at a few minutes on two cores (about one
# minute of it CPU; the rest is building the study world for each operation).
FUZZ_EXAMPLES = 6
OTHER_ROLE_EXAMPLES = 3

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# For the other roles the answers are mostly the 403/404 paths: generated examples, without the coverage
# phase's hundreds of boundary cases per operation, which the first role runs.
other_roles_schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
other_roles_schema.config.phases.update(phases=["examples", "fuzzing"])


def filter_body(context, body) -> bool:
    """No NUL in the keys of a mapping: docs/api.md says so and the API answers 400, but OpenAPI 3.0 has no
    way to say it of keys (text values carry the pattern). Only bodies breaking that one rule are left out."""
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any("\x00" in str(key) for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


schema.hook(filter_body)
other_roles_schema.hook(filter_body)
# A fixed seed: CI generates the same requests on every run, so a failure reproduces (change it to explore).
for loaded in (schema, other_roles_schema):
    loaded.config.seed = 20261202


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
def data(users, outsider, db):
    return build_api_world(users, others=[users["adjudicator"], outsider])


def _aim(case, data) -> None:
    """Point most generated ids and slugs at objects that exist (the rest keep exploring 404s).

    A path generated to break its schema (negative mode) stays as generated: aimed at an existing object
    it would become valid, and the check would then expect the refusal of a request that is fine."""
    components = case.meta.components if case.meta is not None else {}
    path = components.get(ParameterLocation.PATH)
    if path is not None and path.mode.is_negative:
        return
    params = case.path_parameters or {}
    resource = case.path.split("/")[3] if case.path.count("/") > 3 else ""
    if isinstance(params.get("id"), int) and params["id"] % 4 != 1 and data.ids.get(resource):
        choices = data.ids[resource]
        params["id"] = choices[params["id"] % len(choices)]
    if resource == "public" and isinstance(params.get("slug"), str) and len(params["slug"]) % 4 != 1:
        params["slug"] = data.slug


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


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["adjudicator", "outsider"])
@other_roles_schema.include(path_regex=".*").parametrize()
@settings(max_examples=OTHER_ROLE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_passes_every_default_check_as_other_roles(case, data, role):
    """The same checks for an adjudicator of the studies and for a signed-in user who is in none of them."""
    _aim(case, data)
    case.call_and_validate(headers={"Authorization": f"Token {data.tokens[role]}"})
