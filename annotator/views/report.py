"""The paper's tables and the findings of a study: a page with every table, and each as CSV, LaTeX, SVG and PNG."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

from annotator.services.exports import LABELS, export_access
from annotator.services.exports.streams import blocks
from annotator.services.findings import FINDINGS_PREFIX, study_findings
from annotator.services.report import FORMATS, ReportTable, report_table_render, study_report
from core.errors import DomainError


@login_required
@require_GET
def report_page(request: HttpRequest, pk: int) -> HttpResponse:
    access = export_access(user=request.user, pk=pk, what=LABELS)
    report = study_report(study=access.study)
    findings = study_findings(study=access.study)
    return render(
        request, "annotator/report/page.html", {"study": access.study, "report": report, "findings": findings}
    )


def report_table(study, slug: str) -> ReportTable:
    """A table of the report or, for a "findings-" slug, of the findings (only that part is computed)."""
    if slug.startswith(FINDINGS_PREFIX):
        return study_findings(study=study).table(slug)
    return study_report(study=study).table(slug)


def report_table_response(study, slug: str, fmt: str) -> HttpResponse:
    """One table of the study's report as a download (shared with the API)."""
    try:
        table = report_table(study, slug)
        body = report_table_render(table=table, fmt=fmt)
    except DomainError as exc:
        raise Http404(exc.message) from None
    if isinstance(body, str | bytes):
        response = HttpResponse(body, content_type=FORMATS[fmt])
    else:
        response = StreamingHttpResponse(blocks(body), content_type=FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{study.slug}-{slug}.{fmt}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_GET
def report_table_download(request: HttpRequest, pk: int, slug: str, fmt: str) -> HttpResponse:
    access = export_access(user=request.user, pk=pk, what=LABELS)
    return report_table_response(access.study, slug, fmt)


urlpatterns = [
    path("studies/<id:pk>/report/", report_page, name="study_report"),
    path("studies/<id:pk>/report/<slug:slug>.<str:fmt>", report_table_download, name="study_report_table"),
]
