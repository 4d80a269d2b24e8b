"""Adjudication pages: the queue of disagreements, the side-by-side page, recording and sending back."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotator.forms.adjudication import AnonymousForm, QueueFilterForm, ResolutionForm, SendBackForm
from annotator.models import Resolution
from annotator.permissions import can_manage_study
from annotator.selectors.fixes import issue_fixes
from annotator.selectors.resolutions import (
    adjudication_page,
    adjudication_progress,
    adjudication_queue,
    next_pending,
    queue_filter_options,
    rater_names,
    study_dimensions,
    study_get_for_adjudication,
    study_issue_get,
)
from annotator.services.resolutions import (
    resolution_record,
    resolution_send_back,
    resolutions_ensure,
    study_set_anonymous_adjudication,
)
from core.errors import ConflictError, DomainError

PAGE_SIZE = 50


@login_required
def adjudication_queue_page(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_adjudication(user=request.user, pk=pk)
    # Issues frozen before resolutions existed get theirs now; a no-op query once all exist.
    resolutions_ensure(study=study)
    form = QueueFilterForm(request.GET)
    filters = form.filters()
    page = Paginator(adjudication_queue(study=study, filters=filters), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [
        {
            "study_issue": study_issue,
            "raters": rater_names(study=study, viewer=request.user, assignments=list(study_issue.assignments.all())),
        }
        for study_issue in page
    ]
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "annotator/adjudication/queue.html",
        {
            "study": study,
            "progress": adjudication_progress(study=study),
            "rows": rows,
            "page": page,
            "filters": filters,
            "options": queue_filter_options(study=study, viewer=request.user),
            "query": query.urlencode(),
            "can_manage": can_manage_study(request.user, study),
        },
    )


@login_required
@require_POST
def adjudication_settings(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_adjudication(user=request.user, pk=pk)
    form = AnonymousForm(request.POST)
    form.is_valid()
    try:
        study_set_anonymous_adjudication(study=study, actor=request.user, anonymous=form.cleaned_data["anonymous"])
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:adjudication_queue", pk=study.pk)
    state = "hidden (R1, R2, ...)" if form.cleaned_data["anonymous"] else "shown"
    messages.success(request, f"Raters' names are now {state} on the adjudication pages.")
    return redirect("annotator:adjudication_queue", pk=study.pk)


def _keep_choices(context: dict, form_data: dict) -> None:
    """Show the final categories and exclusion the adjudicator had chosen, not the stored ones, after a refusal."""
    values = form_data.get("values") or {}
    for row in context["rows"]:
        if row.dimension.key in values:
            row.final = list(values[row.dimension.key])
    context["final_excluded"] = bool(form_data.get("excluded"))


def _render_page(
    request,
    study_issue,
    *,
    error: str | None = None,
    error_field: str | None = None,
    status: int = 200,
    form_data=None,
    keep_choices: bool = False,
):
    context = adjudication_page(study_issue=study_issue, viewer=request.user)
    resolution = context["resolution"]
    context["final_excluded"] = bool(resolution and resolution.excluded)
    if form_data and keep_choices:
        _keep_choices(context, form_data)
    context.update(
        {
            "error": error,
            "error_field": error_field,
            "reason_required": bool(resolution and resolution.disagreements),
            "form_data": form_data,
            "reasons": [(value, label) for value, label in Resolution.Reason.choices if value],
            "methods": [(m.value, m.label) for m in (Resolution.Method.ADJUDICATED, Resolution.Method.NEGOTIATED)],
            "api_url": reverse("api:study_issue_resolution", args=[study_issue.pk]),
            "history_url": reverse("annotator:study_issue_history", args=[study_issue.study_id, study_issue.pk]),
            "fix": issue_fixes([study_issue.issue_id]).get(study_issue.issue_id),
        }
    )
    return render(request, "annotator/adjudication/page.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def adjudicate(request: HttpRequest, pk: int, study_issue_pk: int) -> HttpResponse:
    study = study_get_for_adjudication(user=request.user, pk=pk)
    study_issue = study_issue_get(study=study, pk=study_issue_pk)
    if request.method == "GET":
        return _render_page(request, study_issue)
    form = ResolutionForm(request.POST, dimensions=study_dimensions(study=study))
    if not form.is_valid():
        return _render_page(request, study_issue, error="The form could not be read; reload the page.", status=400)
    data = form.cleaned_data
    try:
        resolution_record(
            study_issue=study_issue,
            actor=request.user,
            values={} if data["excluded"] else dict(data["values"]),
            proposals={} if data["excluded"] else dict(data["proposals"]),
            excluded=data["excluded"],
            method=data["method"],
            reason=data["reason"],
            note=data["note"],
            expected_version=data["version"],
        )
    except DomainError as exc:
        conflict = isinstance(exc, ConflictError)
        # After a conflict, reload the study issue so the page shows the decision that won, not the one that
        # lost; after any other refusal, every choice made stays on the page and the field at fault is marked.
        return _render_page(
            request,
            study_issue_get(study=study, pk=study_issue.pk),
            error=exc.message,
            error_field=exc.field,
            status=409 if conflict else exc.status_code,
            form_data=data,
            keep_choices=not conflict,
        )
    messages.success(request, f"Resolved #{study_issue.position}.")
    upcoming = next_pending(study=study, after=study_issue)
    if upcoming is None:
        messages.info(request, "No more disagreements waiting. Thank you!")
        return redirect("annotator:adjudication_queue", pk=study.pk)
    return redirect("annotator:adjudicate", pk=study.pk, study_issue_pk=upcoming.pk)


@login_required
@require_POST
def send_back(request: HttpRequest, pk: int, study_issue_pk: int) -> HttpResponse:
    study = study_get_for_adjudication(user=request.user, pk=pk)
    study_issue = study_issue_get(study=study, pk=study_issue_pk)
    form = SendBackForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Tell the raters what to discuss before sending the issue back.")
        return redirect("annotator:adjudicate", pk=study.pk, study_issue_pk=study_issue.pk)
    try:
        resolution_send_back(
            study_issue=study_issue,
            actor=request.user,
            note=form.cleaned_data["note"],
            expected_version=form.cleaned_data["version"],
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:adjudicate", pk=study.pk, study_issue_pk=study_issue.pk)
    messages.success(request, f"#{study_issue.position} is back with its raters for discussion.")
    return redirect("annotator:adjudication_queue", pk=study.pk)


urlpatterns = [
    path("studies/<id:pk>/adjudication/", adjudication_queue_page, name="adjudication_queue"),
    path("studies/<id:pk>/adjudication/settings/", adjudication_settings, name="adjudication_settings"),
    path("studies/<id:pk>/adjudication/<id:study_issue_pk>/", adjudicate, name="adjudicate"),
    path("studies/<id:pk>/adjudication/<id:study_issue_pk>/send-back/", send_back, name="adjudication_send_back"),
]
