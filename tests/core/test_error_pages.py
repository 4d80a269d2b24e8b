"""Error pages use the site's layout and say what to do; the navigation shows only what a role may use."""

import pytest
from django.contrib.auth import get_user, login
from django.contrib.auth.models import Group
from django.contrib.sessions.backends.db import SessionStore
from django.template import loader

from core.models import User
from core.permissions import STUDY_OWNERS_GROUP, can_manage_imports


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


def test_the_signed_in_user_carries_its_site_roles_so_the_navigation_costs_no_query(
    rf, importer, django_assert_num_queries
):
    request = rf.get("/")
    request.session = SessionStore()
    login(request, importer, backend="core.backends.SiteRolesBackend")
    loaded = get_user(request)
    assert loaded.pk == importer.pk
    with django_assert_num_queries(0):
        assert can_manage_imports(loaded) is True


def test_a_user_loaded_elsewhere_is_still_asked_the_database(users, importer, django_assert_num_queries):
    plain = User.objects.get(pk=users["rater_a"].pk)
    with django_assert_num_queries(1):
        assert can_manage_imports(plain) is False


def test_the_favicon_is_served_from_the_static_files(client_as):
    body = client_as("rater_a").get("/studies/").content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in body
