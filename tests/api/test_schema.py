"""The OpenAPI schema builds for the whole project without a single warning, and Swagger UI is served offline."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_spectacular_validates_without_warnings(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "config.settings_test"},
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.django_db
def test_swagger_ui_is_served_from_our_own_static_files(client):
    from tests.factories import UserFactory

    client.force_login(UserFactory(username="reader"))
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html
    # Every script and stylesheet comes from our own origin. (A bare "cdn" substring test once
    # failed on a random CSRF token that happened to contain those three letters.)
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(source.startswith("/") for source in sources), sources
    assert "'unsafe-inline'" in page["Content-Security-Policy"]  # Swagger UI's own inline bootstrap


@pytest.mark.django_db
def test_schema_lists_the_resource_endpoints(client):
    from tests.factories import UserFactory

    client.force_login(UserFactory(username="reader"))
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in [
        "/api/v1/issues/",
        "/api/v1/repositories/",
        "/api/v1/studies/{id}/",
        "/api/v1/studies/{id}/category-counts/",
        "/api/v1/me/annotations/",
        "/api/v1/import-jobs/",
        "/api/v1/public/studies/{slug}/dataset/",
    ]:
        assert path in schema["paths"], path
