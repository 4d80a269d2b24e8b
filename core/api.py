"""API helpers shared by every app: one error body shape for every failure.

Every error an API client can meet — validation, domain rules, 401/403/404/405, throttling, an
unknown URL under /api/, even a server error — answers ``{"error": {"code", "message", "fields"?}}``.
"""

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

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

# The database is busy (on SQLite, another writer held the lock past the timeout) or cannot be reached: the
# request changed nothing (its transaction rolled back), and the same request may well work in a moment.
DATABASE_UNAVAILABLE_MESSAGE = (
    "The database is busy or cannot be reached, so nothing was saved by this request. Try again in a moment."
)
DATABASE_RETRY_AFTER_SECONDS = 5
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


def database_unavailable_json() -> JsonResponse:
    """503 with the API's error body for a request the database failed (busy or unreachable)."""
    response = JsonResponse(error_body("unavailable", DATABASE_UNAVAILABLE_MESSAGE), status=503)
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Render errors as {"error": {"code", "message", "fields"?}} for DRF and domain errors alike."""
    if isinstance(exc, OperationalError):
        logger.warning("database unavailable: %s", exc, exc_info=exc)
        return Response(
            error_body("unavailable", DATABASE_UNAVAILABLE_MESSAGE),
            status=503,
            headers={"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)},
        )
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
    """500 with the API's error body under /api/ (the details stay in the server log)."""
    if request.path.startswith(API_PREFIX):
        message = "The server failed to answer this request; the error was logged. Try again later."
        return JsonResponse(error_body("server_error", message), status=500)
    return defaults.server_error(request)
