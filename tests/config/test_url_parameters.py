"""Every URL that takes an id refuses ids beyond the database's range with a 404, never a 500.

Walks the whole URL configuration, so a URL added later is covered without editing this test.
"""

import re

import pytest

from tests.config.routes import PARAMETER, all_routes

HUGE = "99999999999999999999"  # 20 digits: beyond a bigint
BIGINT_MAX = str(2**63 - 1)


def _routes_with_ids() -> list[str]:
    routes = []
    for route in all_routes():
        if route.startswith("admin/") or route.startswith("^"):
            continue  # the admin's own URLs take ids as text and are tested below
        converters = [m.group("converter") for m in PARAMETER.finditer(route)]
        if any(c in {"int", "id"} for c in converters):
            routes.append(route)
    return routes


def _fill(route: str, number: str) -> str:
    def value(match: re.Match) -> str:
        return number if match.group("converter") in {"int", "id"} else "x"

    return "/" + PARAMETER.sub(value, route)


ROUTES = _routes_with_ids()


def test_the_walk_finds_the_urls_that_take_ids():
    assert len(ROUTES) > 40
    assert "api/v1/annotations/<id:pk>/draft/" in ROUTES


@pytest.mark.django_db
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("number", [HUGE, BIGINT_MAX])
def test_an_id_beyond_any_row_answers_404(client_as, route, number):
    client = client_as("staff")
    url = _fill(route, number)
    for method in (client.get, client.post):
        status = method(url).status_code
        # The largest id may meet body validation first (415: the client's default multipart body is not JSON).
        expected = {404} if number == HUGE else {400, 404, 405, 415}
        assert status in expected, f"{method.__name__.upper()} {url} answered {status}"


@pytest.mark.django_db
@pytest.mark.parametrize("model", ["annotator/issue", "annotator/study", "core/user", "taxonomy/taxonomy"])
def test_the_admin_answers_a_huge_id_without_a_server_error(client_as, model):
    response = client_as("staff").get(f"/admin/{model}/{HUGE}/change/")
    assert response.status_code in {302, 404}
