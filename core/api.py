"""API helpers shared by every app: one error body shape for every failure.

Every error an API client can meet — validation, domain rules, 401/403/404/405, throttling, an
unknown URL under /api/, even a server error — answers ``{"error": {"code", "message", "fields"?}}``.
"""

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .availability import MESSAGES, RETRY_AFTER_SECONDS, unavailable_part
from .errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError, UnavailableError
from .parsers import RequestTooLarge

# Codes match DRF's own (not_found, permission_denied, ...) so clients test one vocabulary.
# The base DomainError keeps "domain": the labelling page tells rule messages from field errors by it.
DOMAIN_CODES: dict[type[DomainError], str] = {
    NotFoundError: "not_found",
    PermissionDeniedError: "permission_denied",
    ConflictError: "conflict",
    UnavailableError: "unavailable",
}
API_PREFIX = "/api/"

logger = logging.getLogger(__name__)


# An error repeats what the client sent (unknown keys, bad values): bounded, so a body of a hundred
# thousand keys never comes back as a response of the same size.
MAX_MESSAGE_CHARS = 1000
MAX_ERROR_FIELDS = 50


def _bounded_text(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "… (cut)"


def _bounded_fields(fields: Any) -> Any:
    if isinstance(fields, dict):
        items = list(fields.items())
        kept = {str(key)[:200]: _bounded_fields(value) for key, value in items[:MAX_ERROR_FIELDS]}
        if len(items) > MAX_ERROR_FIELDS:
            kept["…"] = [f"and {len(items) - MAX_ERROR_FIELDS:,} more fields with errors"]
        return kept
    if isinstance(fields, list):
        kept_list = [_bounded_fields(value) for value in fields[:MAX_ERROR_FIELDS]]
        if len(fields) > MAX_ERROR_FIELDS:
            kept_list.append(f"and {len(fields) - MAX_ERROR_FIELDS:,} more errors")
        return kept_list
    if isinstance(fields, str):
        return _bounded_text(fields)
    return fields


def error_body(code: str, message: str, fields: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": _bounded_text(message)}
    if fields:
        body["fields"] = _bounded_fields(fields)
    return {"error": body}


def _domain_code(exc: DomainError) -> str:
    for cls in type(exc).__mro__:
        if cls in DOMAIN_CODES:
            return DOMAIN_CODES[cls]
    return "domain"


def unavailable_response(request: HttpRequest, part: str, exc: BaseException) -> HttpResponse:
    """503 with Retry-After for a request a part failed (core.availability): the API's error body under /api/,
    the 503 page elsewhere. The page is rendered without the request's context, as Django renders the 500 page:
    its context processors (the user, the page flags) would ask the failing part again."""
    logger.warning("%s unavailable: %s", part, exc, exc_info=exc)
    if request.path.startswith(API_PREFIX):
        response = JsonResponse(error_body("unavailable", MESSAGES[part]), status=503)
    else:
        response = HttpResponse(render_to_string("503.html", {"part": part}), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """Render errors as {"error": {"code", "message", "fields"?}} for DRF and domain errors alike."""
    part = unavailable_part(exc)
    if part is not None:
        return unavailable_response(context["request"], part, exc)
    if isinstance(exc, DomainError):
        fields = {exc.field: [exc.message]} if exc.field else None
        return Response(error_body(_domain_code(exc), exc.message, fields), status=exc.status_code)
    # Django's own exceptions (raised by selectors) become DRF's, so they carry a proper code.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    elif isinstance(exc, RequestDataTooBig):  # Django's own bound on request.body
        exc = RequestTooLarge(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    elif isinstance(exc, TooManyFieldsSent):
        exc = exceptions.ParseError(f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    code = getattr(exc, "default_code", "error")
    if isinstance(exc, exceptions.APIException) and isinstance(exc.detail, exceptions.ErrorDetail):
        code = exc.detail.code or code
    if isinstance(data, dict) and set(data) == {"detail"}:
        response.data = error_body(code, str(data["detail"]))
        return response
    if isinstance(data, list):  # a ValidationError raised with a bare message or list
        data = {"non_field_errors": data}
    response.data = error_body(code, "The request has invalid fields.", data)
    return response


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404 for URLs no view matched: the API's error body under /api/, the usual page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(error_body("not_found", "There is no API endpoint at this address."), status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """500 with the API's error body under /api/ (the details stay in the server log).

    An error no view saw, such as a session the cache could not save after the view, reaches only this
    handler: when it says a part is unavailable, the answer is that part's 503.
    """
    exc = sys.exc_info()[1]
    part = unavailable_part(exc)
    if part is not None:
        return unavailable_response(request, part, exc)
    if request.path.startswith(API_PREFIX):
        message = "The server failed to answer this request; the error was logged. Try again later."
        return JsonResponse(error_body("server_error", message), status=500)
    return defaults.server_error(request)
