"""API helpers shared by every app: one error body shape for every failure."""

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import DomainError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Render errors as {"error": {"code", "message", "fields"?}} for DRF and domain errors alike."""
    if isinstance(exc, DomainError):
        body: dict[str, Any] = {
            "code": type(exc).__name__.removesuffix("Error").lower() or "error",
            "message": exc.message,
        }
        if exc.field:
            body["fields"] = {exc.field: [exc.message]}
        return Response({"error": body}, status=exc.status_code)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    code = getattr(exc, "default_code", "error")
    if isinstance(data, dict) and set(data) == {"detail"}:
        body = {"code": code, "message": str(data["detail"])}
    else:
        body = {"code": code, "message": "The request has invalid fields.", "fields": data}
    response.data = {"error": body}
    return response
