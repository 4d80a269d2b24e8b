"""GitHub import pages: start an import, "sync now" per repository, and a job's live progress."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_GET, require_POST

from annotator.jobs import JobNotQueuedError
from annotator.models import ImportJob, Repository
from annotator.selectors.github import github_jobs_recent, github_repositories
from annotator.selectors.imports import (
    import_job_get,
    import_job_issue_count,
    import_job_repositories,
    import_jobs_actable,
)
from annotator.services.github_sync import github_import_start
from core.errors import DomainError, NotFoundError
from core.permissions import can_manage_imports


class GitHubImportForm(forms.Form):
    repository = forms.CharField(
        max_length=300, help_text="owner/name or the repository's address, e.g. deepspeedai/DeepSpeed"
    )
    state = forms.ChoiceField(choices=[("all", "All"), ("open", "Open"), ("closed", "Closed")], initial="all")
    since = forms.DateTimeField(required=False, help_text="Only issues updated since (empty: since the last sync)")
    limit = forms.IntegerField(required=False, min_value=1, help_text="Stop after this many issues")
    include_pulls = forms.BooleanField(required=False, label="Include pull requests")
    fix_links = forms.BooleanField(
        required=False, label="Find fixes", help_text="Reads each closed issue's timeline: one request per issue"
    )
    fix_details = forms.BooleanField(
        required=False,
        label="Fix details",
        help_text="Reads each linked fix's size, files and merge time (finds fixes too): a request per fix "
        "and per 100 files; unchanged fixes are answered 304",
    )
    full = forms.BooleanField(required=False, label="Read everything again (ignore the last sync)")


def _require_manager(request: HttpRequest) -> None:
    _require_manager_user(request.user)


def _require_manager_user(user) -> None:
    if not can_manage_imports(user):
        raise PermissionDenied("Only study owners can import issues.")


def _job_url(job: ImportJob) -> str:
    return reverse("annotator:github_job", args=[job.pk])


@login_required
def github_import(request: HttpRequest) -> HttpResponse:
    _require_manager(request)
    form = GitHubImportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            job = github_import_start(user=request.user, **form.cleaned_data)
        except JobNotQueuedError as exc:  # saved, but the queue is down: its page offers Retry
            messages.error(request, exc.message)
            return redirect("annotator:github_job", pk=exc.job_id)
        except DomainError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, f"Import of {job.parameters['repository']} started (job #{job.pk}).")
            return redirect(_job_url(job))
    context = {
        "form": form,
        "repositories": github_repositories(user=request.user),
        "jobs": github_jobs_recent(user=request.user),
    }
    return render(request, "annotator/github/start.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def github_sync_now(request: HttpRequest, pk: int) -> HttpResponse:
    _require_manager(request)
    repository = get_object_or_404(Repository, pk=pk)
    last = (
        ImportJob.objects.filter(kind=ImportJob.Kind.GITHUB, parameters__repository_id=repository.pk)
        .order_by("-created_at", "-id")
        .first()
    )
    options = last.parameters if last else {}
    try:
        job = github_import_start(
            repository=repository.full_name,
            user=request.user,
            state=options.get("state", "all"),
            include_pulls=bool(options.get("include_pulls")),
            fix_links=bool(options.get("fix_links")),
            fix_details=bool(options.get("fix_details")),
        )
    except JobNotQueuedError as exc:  # saved, but the queue is down: its page offers Retry
        messages.error(request, exc.message)
        return redirect("annotator:github_job", pk=exc.job_id)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:github_import")
    messages.success(request, f"Sync of {repository.full_name} started (job #{job.pk}).")
    return redirect(_job_url(job))


def _job_for(request: HttpRequest, pk: int) -> ImportJob:
    _require_manager(request)
    try:
        return import_job_get(user=request.user, pk=pk, kind=ImportJob.Kind.GITHUB)
    except NotFoundError:
        raise Http404(f"There is no GitHub import #{pk}.") from None


def job_status(job: ImportJob) -> dict:
    """What the progress display shows; the page renders it once, then github.js polls it."""
    return {
        "id": job.pk,
        "status": job.status,
        "status_label": job.get_status_display(),
        "active": job.is_active,
        "stale": job.is_stale,
        "phase": (job.cursor or {}).get("phase", ""),
        "progress_done": job.progress_done,
        "progress_total": job.progress_total,
        "counts": job.counts,
        "error": job.error,
        "resume_at": job.resume_at.isoformat() if job.resume_at else None,
        "duration": str(job.duration).split(".")[0] if job.duration else None,
    }


@login_required
@require_GET
def github_job(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job_for(request, pk)
    actable = import_jobs_actable(user=request.user, jobs=[job])
    context = {
        "job": job,
        "status": job_status(job),
        "actable": actable,
        "repositories": import_job_repositories(job=job),
        "imported_count": 0 if job.is_active else import_job_issue_count(job=job),
    }
    return render(request, "annotator/github/job.html", context)


@login_required
@require_GET
def github_job_status(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(job_status(_job_for(request, pk)))


urlpatterns = [
    path("imports/github/", github_import, name="github_import"),
    path("imports/github/repositories/<id:pk>/sync/", github_sync_now, name="github_sync_now"),
    path("imports/github/jobs/<id:pk>/", github_job, name="github_job"),
    path("imports/github/jobs/<id:pk>/status/", github_job_status, name="github_job_status"),
]
