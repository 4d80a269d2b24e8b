"""Every page answers any query string (NUL, huge, negative or non-ASCII numbers, garbage) without a server error.

Walks the URL configuration: each page without path parameters, and each page of one study and one
issue, gets the query parameters the pages read, filled with hostile values.
"""

import re

import pytest

from tests.config.routes import PARAMETER, all_routes

NAMES = ("q", "page", "limit", "offset", "repository", "state", "study", "round", "level", "dimension", "sort",
         "cursor", "kind", "status", "row", "col", "pair", "order", "per_page", "images", "after", "created_from",
         "created_to", "import", "jump")  # fmt: skip
# "%C2%B2" is "²" and "%D9%A1" "١" (Arabic-Indic one): digits to str.isdigit, not numbers to int().
VALUES = ("%00", "99999999999999999999", "-1", "0x10", "%ff%fe", "a" * 300, "1e309", "[]", "%E2%80%AE", "%C2%B2",
          "%D9%A1")  # fmt: skip


def _page_routes() -> list[str]:
    skip = ("admin/", "api/", "^", "accounts/logout/", "p/")
    return [route for route in all_routes() if not route.startswith(skip)]


ROUTES = _page_routes()


@pytest.fixture
def world(users):
    from tests.annotator.studies.conftest import build_world

    return build_world(users)


def _fill(route: str, world) -> str | None:
    ids = {"pk": world.study.pk}

    def value(match: re.Match) -> str:
        return str(ids.get(match.group("name"), 1)) if match.group("converter") == "id" else "x"

    return "/" + PARAMETER.sub(value, route)


@pytest.mark.django_db
@pytest.mark.parametrize("route", ROUTES)
def test_hostile_query_strings_never_fail_on_the_server(client_as, world, route):
    client = client_as("staff")
    url = _fill(route, world)
    for value in VALUES:
        query = "&".join(f"{name}={value}" for name in NAMES)
        status = client.get(f"{url}?{query}").status_code
        assert status < 500, f"GET {url}?{query[:80]}… answered {status}"
