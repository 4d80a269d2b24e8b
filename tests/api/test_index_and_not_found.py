"""GET /api/v1/ lists the resources with their addresses; an unknown /api/ address answers the JSON 404 body
with DEBUG on as well as off, and a missing slash is still redirected."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_index_lists_every_resource_with_an_address_that_answers(client, users, api_as):
    body = client.get("/api/v1/").json()
    assert body["version"] == "v1" and body["schema"].endswith("/api/schema/")
    names = [resource["name"] for resource in body["resources"]]
    assert names == [
        "repositories",
        "issues",
        "studies",
        "my-annotations",
        "import-jobs",
        "taxonomies",
        "public-studies",
    ]
    staff = api_as("staff")
    for resource in body["resources"]:
        assert staff.get(resource["url"]).status_code == 200, resource


@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_api_address_answers_the_json_error_body(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("debug", [False, True])
def test_an_api_address_without_its_slash_is_still_redirected(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/api/v1/taxonomies")
    assert response.status_code == 301 and response["Location"] == "/api/v1/taxonomies/"


def test_a_page_address_keeps_the_html_404(client, settings):
    settings.DEBUG = True
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
