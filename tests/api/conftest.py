"""The resource API's study world (roles, clients) for the API-wide tests here."""

from tests.annotator.api_resources.conftest import _fresh_cache, api_as, outsider, world  # noqa: F401
