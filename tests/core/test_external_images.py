"""External images in issue text load only when a rater asks, or when the site allows them."""

import pytest
from django.test import override_settings

from tests.annotator.factories_issues import IssueFactory

pytestmark = pytest.mark.django_db
TRACKER = "https://tracker.example/pixel.png"


@pytest.fixture
def issue():
    return IssueFactory(body=f"Loss explodes.\n\n![loss curve]({TRACKER})")


def img_src(response) -> str:
    policy = response.headers["Content-Security-Policy"]
    return next(part for part in policy.split("; ") if part.startswith("img-src"))


def test_the_issue_page_shows_a_placeholder_and_no_external_image(client_as, issue):
    response = client_as("owner").get(f"/issues/{issue.pk}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert f'<img src="{TRACKER}"' not in html and f'data-src="{TRACKER}"' in html
    assert 'data-external-images="ask"' in html and "js/external-images.js" in html
    assert img_src(response) == "img-src 'self' data:", "the browser itself must refuse other sites' images"


def test_asking_for_images_opens_the_policy_for_that_page_only(client_as, issue):
    client = client_as("owner")
    asked = client.get(f"/issues/{issue.pk}/?images=load")
    assert 'data-external-images="load"' in asked.content.decode()
    assert img_src(asked) == "img-src 'self' data: https:"
    assert img_src(client.get(f"/issues/{issue.pk}/")) == "img-src 'self' data:"


@override_settings(ISSUE_IMAGES_EXTERNAL=True)
def test_a_setting_allows_external_images_everywhere(client_as, issue):
    response = client_as("owner").get(f"/issues/{issue.pk}/")
    assert 'data-external-images="load"' in response.content.decode()
    assert img_src(response) == "img-src 'self' data: https:"
