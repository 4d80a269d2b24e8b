"""One error body everywhere: validation, domain rules, 401/403/404/405, unknown URLs, throttling."""

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from annotator.models import Annotation
from tests.annotator.api_resources.conftest import submit

pytestmark = pytest.mark.django_db


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code and body["error"]["message"]
    return body["error"]


def test_validation_error_names_fields(world, api_as):
    url = f"/api/v1/annotations/{world.a.annotation.pk}/draft/"
    err = error(api_as("rater_a").put(url, {"version": "x"}, format="json"), 400, "invalid")
    assert "version" in err["fields"]


def test_domain_conflict_has_its_code(world, api_as):
    url = f"/api/v1/annotations/{world.a.annotation.pk}/draft/"
    err = error(api_as("rater_a").put(url, {"version": 99}, format="json"), 409, "conflict")
    assert "another tab" in err["message"]


def test_other_raters_annotation_is_404_not_403(world, api_as):
    error(api_as("rater_b").get(f"/api/v1/annotations/{world.a.annotation.pk}/"), 404, "not_found")


def test_method_not_allowed(world, api_as):
    error(api_as("owner").delete(f"/api/v1/studies/{world.study.pk}/"), 405, "method_not_allowed")


def test_unknown_api_url_answers_the_error_body(api_as, world):
    error(api_as("owner").get("/api/v1/no-such-thing/"), 404, "not_found")


def test_permission_denied_from_a_selector(world, api_as, users):
    submit(world, users, "rater_a", 0)
    error(api_as("rater_a").get(f"/api/v1/studies/{world.study.pk}/agreement/"), 403, "permission_denied")


def test_invalid_token_is_401(world):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    error(client.get("/api/v1/issues/"), 401, "authentication_failed")


def throttled(rates: dict):
    from django.conf import settings

    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates})


def test_anonymous_clients_are_throttled_with_the_error_body(published):
    from rest_framework.throttling import SimpleRateThrottle

    url = f"/api/v1/public/studies/{published.study.slug}/"
    with throttled({"anon": "2/min", "user": "1000/min"}):
        # DRF reads the rates when the throttle class is created; refresh them for this test.
        original = SimpleRateThrottle.THROTTLE_RATES
        from rest_framework.settings import api_settings

        SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        try:
            client = APIClient()
            assert [client.get(url).status_code for _ in range(2)] == [200, 200]
            response = client.get(url)
            err = error(response, 429, "throttled")
            assert "Retry-After" in response.headers and "throttled" in err["message"].lower()
        finally:
            SimpleRateThrottle.THROTTLE_RATES = original


def test_users_are_throttled_by_the_user_rate(world, api_as):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    with throttled({"anon": "1000/min", "user": "3/min"}):
        original = SimpleRateThrottle.THROTTLE_RATES
        SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        try:
            client = api_as("owner")
            codes = [client.get("/api/v1/studies/").status_code for _ in range(4)]
            assert codes == [200, 200, 200, 429]
            # Nothing changed on a throttled write either.
            before = Annotation.objects.get(pk=world.a.annotation.pk).version
            error(api_as("owner").get("/api/v1/repositories/"), 429, "throttled")
            assert Annotation.objects.get(pk=world.a.annotation.pk).version == before
        finally:
            SimpleRateThrottle.THROTTLE_RATES = original
