"""The export page of a study: streamed downloads, and the replication package built in the background."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from annotator.models import ExportJob
from annotator.services.exports import (
    FORMATS,
    LABELS,
    TAXONOMY,
    export_access,
    export_stream,
    replication_package_request,
)
from annotator.services.exports.access import BLIND_MESSAGE
from annotator.services.jobs import job_cancel, job_retry
from core.errors import DomainError, PermissionDeniedError

JOBS_SHOWN = 5


def streaming_download(stream) -> StreamingHttpResponse:
    response = StreamingHttpResponse(stream.chunks, content_type=stream.content_type)
    response["Content-Disposition"] = f'attachment; filename="{stream.filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_GET
def exports_page(request: HttpRequest, pk: int) -> HttpResponse:
    access = export_access(user=request.user, pk=pk, what=TAXONOMY)
    try:
        export_access(user=request.user, pk=pk, what=LABELS)
        labels_allowed = True
    except PermissionDenied:
        labels_allowed = False
    jobs = list(ExportJob.objects.filter(study=access.study).select_related("created_by")[:JOBS_SHOWN])
    context = {
        "study": access.study,
        "access": access,
        "labels_allowed": labels_allowed,
        "blind_message": BLIND_MESSAGE,
        "formats": FORMATS,
        "jobs": jobs,
        "active": any(job.is_active and not job.is_stale for job in jobs),
    }
    return render(request, "annotator/exports/page.html", context)


@login_required
@require_GET
def export_download(request: HttpRequest, pk: int, what: str, fmt: str) -> StreamingHttpResponse:
    access = export_access(user=request.user, pk=pk, what=TAXONOMY if what == "taxonomy" else LABELS)
    try:
        stream = export_stream(access=access, what=what, fmt=fmt)
    except DomainError as exc:
        raise Http404(exc.message) from None
    return streaming_download(stream)


@login_required
@require_POST
def replication_build(request: HttpRequest, pk: int) -> HttpResponse:
    access = export_access(user=request.user, pk=pk, what=TAXONOMY)
    if not access.manager:
        raise PermissionDenied("Only the study's owner can build its replication package.")
    try:
        replication_package_request(study=access.study, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "The replication package is being built; this page shows when it is ready.")
    return redirect("annotator:study_exports", pk=access.study.pk)


@login_required
@require_POST
def replication_job_action(request: HttpRequest, pk: int, job_pk: int, action: str) -> HttpResponse:
    """Retry or cancel a failed, stalled or not-queued package build."""
    access = export_access(user=request.user, pk=pk, what=TAXONOMY)
    job = ExportJob.objects.filter(pk=job_pk, study=access.study).first()
    if job is None:
        raise Http404("No replication package build with that number.")
    try:
        if action == "retry":
            job_retry(job=job, actor=request.user)
            messages.success(request, f"Build #{job.pk} was queued again.")
        else:
            job_cancel(job=job, actor=request.user)
            messages.success(request, f"Build #{job.pk} was cancelled.")
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from None
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("annotator:study_exports", pk=access.study.pk)


@login_required
@require_GET
def replication_download(request: HttpRequest, pk: int, job_pk: int) -> FileResponse:
    access = export_access(user=request.user, pk=pk, what=LABELS)
    job = ExportJob.objects.filter(pk=job_pk, study=access.study, status=ExportJob.Status.DONE).first()
    if job is None or not job.file:
        raise Http404("No finished replication package with that number.")
    return FileResponse(job.file.open("rb"), as_attachment=True, filename=f"{access.study.slug}-replication.zip")


urlpatterns = [
    path("studies/<id:pk>/exports/", exports_page, name="study_exports"),
    path(
        "studies/<id:pk>/exports/replication/<id:job_pk>/retry/",
        replication_job_action,
        {"action": "retry"},
        name="study_replication_retry",
    ),
    path(
        "studies/<id:pk>/exports/replication/<id:job_pk>/cancel/",
        replication_job_action,
        {"action": "cancel"},
        name="study_replication_cancel",
    ),
    path("studies/<id:pk>/exports/<str:what>.<str:fmt>", export_download, name="study_export_download"),
    path("studies/<id:pk>/exports/replication/", replication_build, name="study_replication_build"),
    path(
        "studies/<id:pk>/exports/replication/<id:job_pk>.zip", replication_download, name="study_replication_download"
    ),
]
