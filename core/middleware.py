"""A strict Content-Security-Policy: pages load scripts and styles only from our own origin.

Issue text is sanitised before rendering; the CSP is the second wall should a hole appear.
"""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

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
