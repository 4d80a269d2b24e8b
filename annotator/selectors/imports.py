"""Reading import jobs. Only people who may manage imports see them."""

from django.db.models import QuerySet

from annotator.models import ImportJob
from core.errors import NotFoundError, PermissionDeniedError
from core.permissions import can_manage_imports

RECENT_JOBS = 100


def import_jobs_recent(*, user, limit: int = RECENT_JOBS) -> QuerySet[ImportJob]:
    """The latest import jobs of every kind, newest first (the list page's one query)."""
    if not can_manage_imports(user):
        raise PermissionDeniedError("Only study owners can see imports.")
    return (
        ImportJob.objects.select_related("created_by")
        .defer("problems", "cursor")
        .order_by("-created_at", "-id")[:limit]
    )


def import_job_get(*, user, pk: int) -> ImportJob:
    if not can_manage_imports(user):
        raise PermissionDeniedError("Only study owners can see imports.")
    job = ImportJob.objects.select_related("created_by").filter(pk=pk).first()
    if job is None:
        raise NotFoundError(f"There is no import #{pk}.")
    return job
