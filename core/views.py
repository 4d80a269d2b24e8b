import logging

from django.contrib.auth.decorators import login_required
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.cache import never_cache

logger = logging.getLogger(__name__)


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers, 503 when it does not (for load balancers and compose).

    Anyone may call it, so the answer never carries the driver's message (host names, ports, user
    names): that goes to the server log for the operator.
    """
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("Health check: the database did not answer")
        return JsonResponse({"status": "unavailable", "database": "unavailable"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return redirect("annotator:issue_list")
