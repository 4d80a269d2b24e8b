"""Reading import jobs: which jobs a user may see, and act on (retry, cancel). One rule for the pages, the API
and the services.

Teams share one instance, so an import job is not every study owner's:
- staff see and act on every job;
- whoever started a job sees it and may retry or cancel it (while they may still manage imports);
- the owners of the study a spreadsheet import fed see it (their study's history);
- a GitHub sync serves every team (a repository's issues are shared), so everyone who may manage imports sees
  it, but only its starter and staff retry or cancel it (a sync the scheduler started: staff).
Everyone else is answered 404 for a job, as if it did not exist; people who may not import at all, 403.
"""

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from annotator.importers.files import parse_repository_ref
from annotator.models import ImportedIssue, ImportJob, Repository, StudyMember
from core.errors import NotFoundError, PermissionDeniedError
from core.permissions import can_manage_imports

RECENT_JOBS = 100
IMPORTS_DENIED = "Only study owners can see imports."


def _require_importer(user) -> None:
    if not can_manage_imports(user):
        raise PermissionDeniedError(IMPORTS_DENIED)


def import_jobs_visible(*, user) -> QuerySet[ImportJob]:
    """Every import job the user may see (unordered, nothing joined); PermissionDeniedError for non-importers."""
    _require_importer(user)
    if user.is_staff:
        return ImportJob.objects.all()
    visible = Q(created_by=user) | Q(kind=ImportJob.Kind.GITHUB)
    owned = list(StudyMember.objects.filter(user=user, role=StudyMember.Role.OWNER).values_list("study_id", flat=True))
    if owned:
        visible |= Q(kind=ImportJob.Kind.SHEETS, parameters__study_id__in=owned)
    return ImportJob.objects.filter(visible)


def import_jobs_actable(*, user, jobs: Iterable[ImportJob]) -> set[int]:
    """The ids of the jobs the user may retry or cancel: staff any, others those they started (while they may
    still manage imports). One permission query whatever the number of jobs."""
    if not can_manage_imports(user):
        return set()
    return {job.pk for job in jobs if user.is_staff or (job.created_by_id is not None and job.created_by_id == user.pk)}


def import_job_may_act(*, user, job: ImportJob) -> bool:
    return job.pk in import_jobs_actable(user=user, jobs=[job])


def import_jobs_recent(*, user, limit: int = RECENT_JOBS) -> QuerySet[ImportJob]:
    """The latest import jobs of every kind the user may see, newest first (the list page's one query)."""
    return (
        import_jobs_visible(user=user)
        .select_related("created_by")
        .defer("problems", "cursor")
        .order_by("-created_at", "-id")[:limit]
    )


def import_job_get(*, user, pk: int, kind: str | None = None) -> ImportJob:
    jobs = import_jobs_visible(user=user).select_related("created_by")
    if kind is not None:
        jobs = jobs.filter(kind=kind)
    job = jobs.filter(pk=pk).first()
    if job is None:
        raise NotFoundError(f"There is no import #{pk}.")
    return job


def import_job_visible(*, user, pk: int) -> ImportJob | None:
    """The job if the user may see it; None when there is no such job, it is another team's, or the user may
    not see imports at all. For filters by a job (the issue list's ?import=), which then show nothing: one
    answer for all three, so an id tells nothing about other teams' jobs."""
    if not can_manage_imports(user):
        return None
    return import_jobs_visible(user=user).filter(pk=pk).first()


def import_job_label(job: ImportJob) -> str:
    """What a job imported, in a few words: a file import's file name, a GitHub import's repository."""
    params = job.parameters or {}
    if job.kind == ImportJob.Kind.GITHUB:
        return params.get("repository") or "GitHub"
    return params.get("filename") or job.get_kind_display().lower()


def import_job_issue_count(*, job: ImportJob) -> int:
    """How many issues the job wrote or found unchanged (0 for jobs run before imports recorded them)."""
    return ImportedIssue.objects.filter(job=job).count()


def import_job_repositories(*, job: ImportJob) -> list[Repository]:
    """The repositories a job names (a GitHub import's, a file import's "into owner/name"), for links to all
    their issues; a file import that took each issue's repository from its URL names none. (Which issues the
    job itself wrote are its ImportedIssue rows: import_job_issue_count.)"""
    params = job.parameters or {}
    if params.get("repository_id"):
        return list(Repository.objects.filter(pk=params["repository_id"]))
    try:
        ref = parse_repository_ref(params.get("repo") or "")
    except ValueError:  # no repository named, or one this version no longer reads
        return []
    named = Q(host__iexact=ref.host, owner__iexact=ref.owner, name__iexact=ref.name)
    renamed = Q(aliases__host__iexact=ref.host, aliases__owner__iexact=ref.owner, aliases__name__iexact=ref.name)
    return list(Repository.objects.filter(named | renamed).distinct())
