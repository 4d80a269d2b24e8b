"""Error pages use the site's layout and say what to do; the navigation shows only what a role may use."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.template import loader
from django.test.utils import CaptureQueriesContext

from core.permissions import STUDY_OWNERS_GROUP


@pytest.fixture
def importer(users):
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    return users["owner"]


def test_a_missing_page_has_the_layout_the_reason_and_a_way_on(client_as):
    response = client_as("rater_a").get("/studies/999999/")
    assert response.status_code == 404
    body = response.content.decode()
    assert 'data-testid="error-page"' in body and 'class="topbar"' in body
    assert "This page does not exist, or is not yours to see" in body
    assert 'href="/studies/"' in body  # back to the rater's studies
    assert "ask its owner to add you" in body


def test_a_refused_page_says_which_role_it_takes(client_as, importer):
    response = client_as("rater_a").get("/imports/")
    assert response.status_code == 403
    body = response.content.decode()
    assert 'data-testid="error-page"' in body
    assert "Only study owners can import issues." in body  # the reason the view gave
    assert "Nothing was changed" in body


def test_the_server_error_page_renders_without_a_request():
    # Django renders 500.html with an empty context: the layout must not need the request or a user.
    html = loader.get_template("500.html").render({})
    assert "Something went wrong on our side" in html and 'class="topbar"' in html
    assert "Sign in" in html


def test_an_unknown_api_address_still_answers_json(client_as):
    response = client_as("rater_a").get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


@pytest.mark.parametrize(("role", "sees_imports"), [("rater_a", False), ("adjudicator", False), ("owner", True)])
def test_the_navigation_hides_links_a_role_cannot_use(client_as, importer, role, sees_imports):
    body = client_as(role).get("/studies/").content.decode()
    assert ('href="/imports/"' in body) is sees_imports
    assert 'href="/studies/"' in body


def test_staff_see_imports_without_a_group(client_as):
    assert 'href="/imports/"' in client_as("staff").get("/studies/").content.decode()


def test_the_navigation_reads_no_group_on_a_page(client_as, importer):
    client = client_as("owner")  # signing in works out what the navigation shows
    with CaptureQueriesContext(connection) as queries:  # the issue list needs no role of its own
        assert 'href="/imports/"' in client.get("/issues/").content.decode()
    assert not [q["sql"] for q in queries.captured_queries if "auth_group" in q["sql"]]


def test_a_role_removed_after_sign_in_is_still_checked_by_the_page(client_as, importer):
    client = client_as("owner")
    importer.groups.clear()
    # The link stays until the next sign-in; the page itself refuses, saying why.
    assert 'href="/imports/"' in client.get("/studies/").content.decode()
    assert client.get("/imports/").status_code == 403
    assert 'href="/imports/"' not in client_as("owner").get("/studies/").content.decode()


def test_the_favicon_is_served_from_the_static_files(client_as):
    body = client_as("rater_a").get("/studies/").content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in body
