"""The rater's pages: the queue, the labelling page (with a POST fallback that works without JS), skip."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.views.decorators.http import require_http_methods, require_POST

from annotator.forms.labelling import AnnotationForm, SkipForm
from annotator.labelling_keys import LABELLING_KEYS
from annotator.models import Assignment
from annotator.permissions import is_rater
from annotator.selectors.labelling import (
    assignment_at_position,
    assignment_get_for_rater,
    assignment_next_for_rater,
    assignment_page_for_rater,
    labelling_page,
    rater_assignment_count,
    rater_queue,
    study_dimensions,
    study_get_with_roles,
)
from annotator.services.annotations import (
    EXCLUDED_TEXT_MAX_CHARS,
    NOTE_MAX_CHARS,
    PROPOSAL_MAX_CHARS,
    annotation_save_draft,
    annotation_submit,
)
from annotator.services.assignments import assignment_skip, assignment_unskip
from core.errors import ConflictError, DomainError
from core.numbers import ascii_int

URL_PLACEHOLDER = 987654321  # stands for the assignment id in a reversed URL
TITLE_CHARS = 100
ALL_PAGE_SIZE = 100
MAX_POSITION = 10**9  # queue positions are far below this; a larger "jump" or "after" is not a position
# The page's text boxes stop where the services do.
TEXT_LIMITS = {"note": NOTE_MAX_CHARS, "excluded_text": EXCLUDED_TEXT_MAX_CHARS, "proposal": PROPOSAL_MAX_CHARS}


def _rater_study(request: HttpRequest, pk: int):
    study = study_get_with_roles(user=request.user, pk=pk)
    if not is_rater(request.user, study):
        raise PermissionDenied("You are not a rater in this study.")
    return study


def _for_display(assignments: list, study) -> list:
    """Link, short title and submit time of each listed assignment, prepared once for the page.

    The same as {% url %}, truncatechars:100 and date:"Y-m-d H:i" in the template, which cost more than
    the queries on a list of 50.
    """
    prefix, suffix = reverse("annotator:label", args=[study.pk, URL_PLACEHOLDER]).split(str(URL_PLACEHOLDER), 1)
    for assignment in assignments:
        title = assignment.issue_title
        assignment.page_url = f"{prefix}{assignment.pk}{suffix}"
        assignment.short_title = title if len(title) <= TITLE_CHARS else Truncator(title).chars(TITLE_CHARS)
        submitted = assignment.submitted_at
        assignment.submitted_text = timezone.localtime(submitted).strftime("%Y-%m-%d %H:%M") if submitted else ""
    return assignments


@login_required
def study_queue(request: HttpRequest, pk: int) -> HttpResponse:
    study = _rater_study(request, pk)
    queue = rater_queue(rater=request.user, study=study)
    _for_display(queue["submitted"], study)
    return render(request, "annotator/labelling/queue.html", {"study": study, **queue})


def _position(value: str | None) -> int | None:
    number = ascii_int((value or "").strip().lstrip("#"), max_digits=10)
    return number if number is not None and number <= MAX_POSITION else None


@login_required
def study_assignments(request: HttpRequest, pk: int) -> HttpResponse:
    """Every issue assigned to me in the study, in queue order, 100 a page: filter by status or title, jump to #."""
    study = _rater_study(request, pk)
    if "jump" in request.GET:
        position = _position(request.GET.get("jump"))
        found = assignment_at_position(rater=request.user, study=study, position=position) if position else None
        if found is not None:
            return redirect("annotator:label", pk=study.pk, assignment_pk=found.pk)
        messages.error(request, f"You have no issue at position #{request.GET.get('jump', '').strip()[:12]} here.")
    statuses = dict(Assignment.Status.choices)
    status = request.GET.get("status", "")
    status = status if status in statuses else ""
    title = request.GET.get("q", "")[:200]
    after = _position(request.GET.get("after"))
    page, following = assignment_page_for_rater(
        rater=request.user, study=study, status=status or None, after=after, limit=ALL_PAGE_SIZE, title=title
    )
    _for_display(page, study)
    context = {
        "study": study,
        "assignments": page,
        "following": following,
        "started": after is not None,
        "status": status,
        "statuses": list(statuses.items()),
        "q": title,
        "total": rater_assignment_count(rater=request.user, study=study, status=status or None),
    }
    return render(request, "annotator/labelling/all.html", context)


@login_required
def study_next(request: HttpRequest, pk: int) -> HttpResponse:
    study = _rater_study(request, pk)
    upcoming = assignment_next_for_rater(rater=request.user, study=study)
    if upcoming is None:
        messages.info(request, "Nothing left in your queue for this study. Thank you!")
        return redirect("annotator:study_queue", pk=study.pk)
    return redirect("annotator:label", pk=study.pk, assignment_pk=upcoming.pk)


@login_required
@require_http_methods(["GET", "POST"])
def label(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    study = _rater_study(request, pk)
    assignment = assignment_get_for_rater(rater=request.user, study=study, pk=assignment_pk)
    error, posted = None, None
    if request.method == "POST":
        form = AnnotationForm(request.POST, dimensions=study_dimensions(study=study))
        if form.is_valid():
            service = annotation_submit if form.cleaned_data["action"] == AnnotationForm.ACTION_SUBMIT else None
            service = service or annotation_save_draft
            try:
                service(
                    annotation=assignment.annotation,
                    actor=request.user,
                    data=form.to_input(),
                    expected_version=form.cleaned_data["version"],
                    elapsed_seconds=form.cleaned_data["elapsed_seconds"] or 0,
                )
            except DomainError as exc:
                error = exc.message
                # A conflict shows what is stored (another tab changed it), read again now; any other refusal keeps
                # the input.
                posted = form.to_input()
                if isinstance(exc, ConflictError):
                    posted = None
                    assignment = assignment_get_for_rater(rater=request.user, study=study, pk=assignment_pk)
            else:
                if service is annotation_submit:
                    messages.success(request, "Submitted.")
                    return redirect("annotator:study_next", pk=study.pk)
                messages.success(request, "Draft saved.")
                return redirect("annotator:label", pk=study.pk, assignment_pk=assignment.pk)
        else:
            error = form.problem()
    context = labelling_page(assignment=assignment, posted=posted)
    context.update(
        {
            "error": error,
            "labelling_keys": LABELLING_KEYS,
            "skip_form": SkipForm(),
            "text_limits": TEXT_LIMITS,
            "api_urls": {
                "draft": reverse("api:annotation_draft", args=[context["annotation"].pk]),
                "submit": reverse("api:annotation_submit", args=[context["annotation"].pk]),
            },
        }
    )
    return render(
        request, "annotator/labelling/label.html", context, status=409 if error and "another tab" in error else 200
    )


@login_required
@require_POST
def label_skip(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    study = _rater_study(request, pk)
    assignment = assignment_get_for_rater(rater=request.user, study=study, pk=assignment_pk)
    if request.POST.get("undo"):
        assignment_unskip(assignment=assignment, actor=request.user)
        messages.success(request, "Back in your queue.")
        return redirect("annotator:label", pk=study.pk, assignment_pk=assignment.pk)
    form = SkipForm(request.POST)
    try:
        if not form.is_valid():
            raise DomainError("Say why you skip this issue, so the study owner can act on it.")
        assignment_skip(assignment=assignment, actor=request.user, reason=form.cleaned_data["reason"])
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:label", pk=study.pk, assignment_pk=assignment.pk)
    messages.success(request, "Skipped; the study owner sees your reason.")
    return redirect("annotator:study_next", pk=study.pk)


urlpatterns = [
    path("studies/<id:pk>/queue/", study_queue, name="study_queue"),
    path("studies/<id:pk>/queue/all/", study_assignments, name="study_assignments"),
    path("studies/<id:pk>/next/", study_next, name="study_next"),
    path("studies/<id:pk>/label/<id:assignment_pk>/", label, name="label"),
    path("studies/<id:pk>/label/<id:assignment_pk>/skip/", label_skip, name="label_skip"),
]
