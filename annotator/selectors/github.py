"""Reading what the GitHub import pages show; only people who may manage imports see it."""

from django.db.models import QuerySet

from annotator.models import ImportJob, Repository
from annotator.selectors.imports import import_jobs_visible
from annotator.services.github_sync.jobs import github_web_host
from core.errors import PermissionDeniedError
from core.permissions import can_manage_imports

RECENT_JOBS = 20


def _require_manager(user) -> None:
    if not can_manage_imports(user):
        raise PermissionDeniedError("Only study owners can import issues.")


def github_repositories(*, user) -> QuerySet[Repository]:
    """The repositories on the configured GitHub host, for "sync now"."""
    _require_manager(user)
    return Repository.objects.filter(host__iexact=github_web_host()).order_by("owner", "name")


def github_jobs_recent(*, user, limit: int = RECENT_JOBS) -> QuerySet[ImportJob]:
    """The latest GitHub import jobs, newest first, in one query."""
    return (
        import_jobs_visible(user=user)
        .filter(kind=ImportJob.Kind.GITHUB)
        .select_related("created_by")
        .defer("problems")
        .order_by("-created_at", "-id")[:limit]
    )
