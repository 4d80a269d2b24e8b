"""Imports page: upload a file to import, watch the job, read its summary and problems.

Other importers add their forms to the same page through `extra_forms` (template names).
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotator.jobs import JobNotQueuedError
from annotator.models import ImportJob
from annotator.selectors.imports import (
    import_job_get,
    import_job_issue_count,
    import_job_repositories,
    import_jobs_actable,
    import_jobs_recent,
)
from annotator.services.imports import file_import_create
from annotator.services.jobs import job_cancel, job_retry
from core.errors import DomainError, NotFoundError, PermissionDeniedError
from core.permissions import can_manage_imports

# Template names of further import forms shown on the Imports page (e.g. a GitHub import form).
EXTRA_FORMS: list[str] = ["annotator/github/_link.html"]


class FileImportForm(forms.Form):
    upload = forms.FileField(
        label="File",
        help_text="JSON array, JSON Lines or CSV: GitHub REST issues, `gh issue list --json` output or url + title.",
    )
    repo = forms.CharField(
        label="Repository",
        required=False,
        max_length=300,
        help_text="owner/name, when the file's URLs do not say it. Leave empty to take it from each URL.",
        widget=forms.TextInput(attrs={"placeholder": "deepspeedai/DeepSpeed"}),
    )
    skip_invalid = forms.BooleanField(
        label="Skip invalid records",
        required=False,
        help_text="Import the valid records and list the others. Otherwise nothing is imported if any is invalid.",
    )


def _require_import_rights(request: HttpRequest) -> None:
    if not can_manage_imports(request.user):
        raise PermissionDenied("Only study owners can import issues.")


@login_required
@require_http_methods(["GET", "POST"])
def import_list(request: HttpRequest) -> HttpResponse:
    _require_import_rights(request)
    status = 200
    if request.method == "POST":
        form = FileImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                job = file_import_create(
                    user=request.user,
                    upload=form.cleaned_data["upload"],
                    repo=form.cleaned_data["repo"],
                    skip_invalid=form.cleaned_data["skip_invalid"],
                )
            except PermissionDeniedError as exc:
                raise PermissionDenied(exc.message) from None
            except JobNotQueuedError as exc:  # saved, but the queue is down: its page offers Retry
                messages.error(request, exc.message)
                return redirect("annotator:import_detail", pk=exc.job_id)
            except DomainError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                return redirect("annotator:import_detail", pk=job.pk)
        status = 400
    else:
        form = FileImportForm()
    jobs = list(import_jobs_recent(user=request.user))
    actable = import_jobs_actable(user=request.user, jobs=jobs)
    context = {"form": form, "jobs": jobs, "actable": actable, "extra_forms": EXTRA_FORMS}
    return render(request, "annotator/imports/list.html", context, status=status)


def _job_or_error(request: HttpRequest, pk: int) -> ImportJob:
    try:
        return import_job_get(user=request.user, pk=pk)
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from None
    except NotFoundError as exc:
        raise Http404(exc.message) from None


@login_required
@require_GET
def import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    _require_import_rights(request)
    job = _job_or_error(request, pk)
    actable = import_jobs_actable(user=request.user, jobs=[job])
    context = {
        "job": job,
        "status": job_status(job),
        "actable": actable,
        "repositories": [] if job.is_active else import_job_repositories(job=job),
        "imported_count": 0 if job.is_active else import_job_issue_count(job=job),
    }
    return render(request, "annotator/imports/detail.html", context)


@never_cache
@login_required
@require_GET
def import_status(request: HttpRequest, pk: int) -> JsonResponse:
    _require_import_rights(request)
    return JsonResponse(job_status(_job_or_error(request, pk)))


def job_page(job: ImportJob) -> str:
    """Where a job is shown: a GitHub import has its own progress page."""
    if job.kind == ImportJob.Kind.GITHUB:
        return reverse("annotator:github_job", args=[job.pk])
    if job.kind == ImportJob.Kind.SHEET_READ:  # the wizard's step that waits for it
        return reverse("annotator:sheets_columns")
    return reverse("annotator:import_detail", args=[job.pk])


@login_required
@require_POST
def import_job_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Retry or cancel a failed, stalled or not-queued job (Imports page, a job's page)."""
    _require_import_rights(request)
    job = _job_or_error(request, pk)
    try:
        if action == "retry":
            job = job_retry(job=job, actor=request.user)
            messages.success(request, f"Import #{job.pk} was queued again.")
        else:
            job = job_cancel(job=job, actor=request.user)
            messages.success(request, f"Import #{job.pk} was cancelled.")
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from None
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect(job_page(job))


def job_status(job: ImportJob) -> dict:
    """What the job page polls: small, so polling costs little."""
    return {
        "id": job.pk,
        "status": job.status,
        "status_display": job.get_status_display(),
        "active": job.is_active,
        "stale": job.is_stale,
        "progress_done": job.progress_done,
        "progress_total": job.progress_total,
        "counts": job.counts,
        "error": job.error,
    }


urlpatterns = [
    path("imports/", import_list, name="import_list"),
    path("imports/<id:pk>/", import_detail, name="import_detail"),
    path("imports/<id:pk>/status", import_status, name="import_status"),
    path("imports/<id:pk>/retry/", import_job_action, {"action": "retry"}, name="import_retry"),
    path("imports/<id:pk>/cancel/", import_job_action, {"action": "cancel"}, name="import_cancel"),
]
