"""Request and response guards: a strict Content-Security-Policy, and query strings without NUL.

Issue text is sanitised before rendering; the CSP is the second wall should a hole appear.
"""

from collections.abc import Callable

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'"
)
# Swagger UI and the admin ship inline scripts/styles of their own.
RELAXED_PREFIXES = ("/api/docs/", "/admin/")
RELAXED_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: https:; frame-ancestors 'none'; object-src 'none'"
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        relaxed = request.path.startswith(RELAXED_PREFIXES)
        response.headers.setdefault("Content-Security-Policy", RELAXED_POLICY if relaxed else POLICY)
        return response


class QueryParameterGuardMiddleware:
    """Refuses query strings with NUL characters (400) before any view sees them.

    No text column can hold a NUL (PostgreSQL refuses it outright), so a parameter carrying one can
    only end in a failed query; one check here keeps every page and API filter from meeting it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.META.get("QUERY_STRING", "") or any(
            "\x00" in key or any("\x00" in value for value in values) for key, values in request.GET.lists()
        ):
            return _bad_parameter(request, "Query parameters may not contain NUL characters.")
        return self.get_response(request)


def _bad_parameter(request: HttpRequest, message: str) -> HttpResponse:
    from .api import API_PREFIX, error_body

    if request.path.startswith(API_PREFIX):
        return JsonResponse(error_body("invalid_parameter", message), status=400)
    return defaults.bad_request(request, SuspiciousOperation(message))
