"""Request and response guards: a strict Content-Security-Policy, and query strings without NUL.

Issue text is sanitised before rendering; the CSP is the second wall should a hole appear.
"""

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from core.navigation import NAV_SESSION_KEY

_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src {img}; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'"
)
# Swagger UI and the admin ship inline scripts/styles of their own.
RELAXED_PREFIXES = ("/api/docs/", "/admin/")
RELAXED_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'; object-src 'none'"
)
# Images from other sites tell those sites who opens an issue, and when: only on request.
OWN_IMAGES = "'self' data:"
EXTERNAL_IMAGES = "'self' data: https:"
POLICY = _POLICY.format(img=OWN_IMAGES)
EXTERNAL_IMAGES_PARAMETER = ("images", "load")


def external_images_allowed(request: HttpRequest) -> bool:
    """True when the site allows external images, or the rater asked for them on this page."""
    name, value = EXTERNAL_IMAGES_PARAMETER
    return settings.ISSUE_IMAGES_EXTERNAL or request.GET.get(name) == value


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(RELAXED_PREFIXES):
            policy = RELAXED_POLICY
        else:
            policy = _POLICY.format(img=EXTERNAL_IMAGES if external_images_allowed(request) else OWN_IMAGES)
        response.headers.setdefault("Content-Security-Policy", policy)
        return response


class HealthCheckMiddleware:
    """Answers `/healthz` before anything reads the Host header.

    Probes call the app by address (docker-compose's healthcheck asks http://127.0.0.1:8000/healthz, a
    load balancer the container's IP), which ALLOWED_HOSTS should not have to name: without this, every
    probe of a production setup would get 400 (DisallowedHost) and the service would never be healthy.
    The answer carries nothing but the database's state (core.views.healthz).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/healthz":
            from .views import healthz

            return healthz(request)
        return self.get_response(request)


def page_flags(request: HttpRequest) -> dict:
    """Template context: whether this page shows external images (static/js/external-images.js), and which
    parts of the navigation the viewer may use (links a role cannot use are not shown)."""
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    nav = request.session.get(NAV_SESSION_KEY, {}) if signed_in else {}
    return {
        "external_images": external_images_allowed(request),
        # From the session (core.navigation): a page reads no group for its navigation. A session older
        # than this rule shows the link; the Imports page itself still checks the role.
        "nav_imports": signed_in and nav.get("imports", True),
        # A session older than the Components link follows its Imports link (study owners keep components).
        "nav_components": signed_in and nav.get("components", nav.get("imports", True)),
    }


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


class ApiNotFoundMiddleware:
    """An unknown address under /api/ answers the API's JSON 404 body, with DEBUG on as well as off.

    With DEBUG off Django renders ``handler404`` (core.api.not_found) already; with DEBUG on it renders its
    technical HTML page instead, which an API client cannot read. A 404 a view answered in JSON passes as it
    is, and CommonMiddleware still redirects ``/api/v1/studies`` to ``/api/v1/studies/``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from .api import API_PREFIX, not_found

        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path.startswith(API_PREFIX)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return not_found(request)
        return response


class UnavailablePartMiddleware:
    """A page (or non-DRF view) that a part failed, the database (busy past the timeout, or unreachable) or the
    shared cache (unreachable), answers 503 with a page that says so and to try again, not the 500 page
    (core.availability). DRF views answer the same 503 through core.api.exception_handler, and errors outside
    any view through the 500 handler, core.api.server_error.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from .api import unavailable_response
        from .availability import unavailable_part

        part = unavailable_part(exception)
        if part is None:
            return None
        return unavailable_response(request, part, exception)
