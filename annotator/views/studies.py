"""Study pages: the list, setting up a study, drawing a round, and the owner's dashboard."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotator.forms.studies import SampleDrawForm, StudyCreateForm, StudyUpdateForm
from annotator.models import StudyMember
from annotator.permissions import can_manage_study, is_rater, study_roles
from annotator.selectors.pseudonyms import study_members_as_seen
from annotator.selectors.studies import (
    study_dashboard,
    study_get_for_user,
    study_issue_page,
    study_list_rows,
    study_members,
    study_rounds,
)
from annotator.services.frames import frame_summary, study_frame_current
from annotator.services.sampling import study_issues_add, study_round_draw
from annotator.services.studies import study_create, study_update
from annotator.views.issues import issue_filters_from_query
from core.errors import DomainError
from core.numbers import ascii_int
from core.permissions import can_manage_imports

# One page of search results at most.
MAX_ADDED_PER_REQUEST = 500


def _form_error(form, exc: DomainError) -> None:
    form.add_error(exc.field if exc.field in form.fields else None, exc.message)


@login_required
def study_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "annotator/studies/list.html",
        {"rows": study_list_rows(user=request.user), "can_create": can_manage_imports(request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def study_new(request: HttpRequest) -> HttpResponse:
    if not can_manage_imports(request.user):
        raise PermissionDenied("Only study owners and staff can create studies.")
    # Arriving from the issue search ("New study from this search"): that search is the proposed frame.
    initial = StudyCreateForm.initial_from_search(issue_filters_from_query(request.GET))
    form = StudyCreateForm(request.POST or None, initial=initial, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            study = study_create(
                name=data["name"],
                description=data["description"],
                taxonomy_version=data["taxonomy_version"],
                dimensions=data["dimensions"],
                raters=list(data["raters"]),
                adjudicators=list(data["adjudicators"]),
                raters_per_issue=data["raters_per_issue"],
                assignment_mode=data["assignment_mode"],
                blind=data["blind"],
                guidelines=data["guidelines"],
                pilot_size=data["pilot_size"],
                agreement_threshold=data["agreement_threshold"],
                created_by=request.user,
                frame=form.frame(),
            )
        except DomainError as exc:
            _form_error(form, exc)
        else:
            messages.success(request, f"Study '{study.name}' created. Next: draw its first sample.")
            return redirect("annotator:study_draw", pk=study.pk)
    return render(
        request, "annotator/studies/create.html", {"form": form, "dimension_versions": form.dimension_versions()}
    )


@login_required
def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    manager = can_manage_study(request.user, study)
    frame = study_frame_current(study=study)
    context = {
        "study": study,
        "roles": sorted(study_roles(request.user, study)),
        "is_manager": manager,
        "is_rater": is_rater(request.user, study),
        "members": study_members(study=study),
        "member_roles": StudyMember.Role.choices,
        # Managers see the editable member table; everyone else the list, raters pseudonymised as they see them.
        "members_seen": [] if manager else study_members_as_seen(study=study, viewer=request.user),
        "rounds": study_rounds(study=study),
        "frame": frame,
        "frame_summary": frame_summary(frame),
        "issues_page": study_issue_page(study=study, after=_position(request.GET.get("after"))),
    }
    if manager:
        context["dashboard"] = study_dashboard(study=study)
        context["update_form"] = StudyUpdateForm(initial={"phase": study.phase, "guidelines": study.guidelines})
    return render(request, "annotator/studies/detail.html", context)


@login_required
@require_POST
def study_edit(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    if not can_manage_study(request.user, study):
        raise PermissionDenied("Only the study's owner can change it.")
    form = StudyUpdateForm(request.POST)
    if form.is_valid():
        from annotator.services.agreement import study_leave_pilot

        data = dict(form.cleaned_data)
        try:
            if study.phase == study.Phase.PILOT and data["phase"] != study.Phase.PILOT:
                # Leaving the pilot goes through the agreement gate (overrides: on the agreement page).
                study_leave_pilot(study=study, actor=request.user, to_phase=data.pop("phase"))
            study_update(study=study, actor=request.user, **data)
        except DomainError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, "Study updated.")
    else:
        messages.error(request, "The study was not changed: check the phase and guidelines.")
    return redirect("annotator:study_detail", pk=study.pk)


@login_required
@require_http_methods(["GET", "POST"])
def study_draw(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    if not can_manage_study(request.user, study):
        raise PermissionDenied("Only the study's owner can draw samples.")
    form = SampleDrawForm(request.POST or None, study=study)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            study_round = study_round_draw(
                study=study,
                actor=request.user,
                filters=form.filters(),
                size=data["size"] or 0,
                seed=data["seed"],
                stratification=data["stratification"],
                per_repository=data["per_repository"],
                kind=data["round_kind"],
                overlap=form.overlap(),
            )
        except DomainError as exc:
            _form_error(form, exc)
        else:
            messages.success(request, _draw_message(study, study_round))
            return redirect("annotator:study_detail", pk=study.pk)
    frame = study_frame_current(study=study)
    context = {"study": study, "form": form, "rounds": study_rounds(study=study), "frame_summary": frame_summary(frame)}
    return render(request, "annotator/studies/draw.html", context)


def _draw_message(study, study_round) -> str:
    drawn = f"Round {study_round.number}: drew {study_round.drawn} of {study_round.pool_size} matching issues"
    n = study.raters_per_issue
    if study_round.double_coded == study_round.drawn and n > 1:
        return f"{drawn} (seed {study_round.seed}) and assigned each to {n} raters."
    single = study_round.drawn - study_round.double_coded
    return (
        f"{drawn} (seed {study_round.seed}): {study_round.double_coded} double-coded (to {n} raters each), "
        f"{single} single-coded (to one rater each)."
    )


def _position(value: str | None) -> int | None:
    return ascii_int(value, max_digits=9)


@login_required
@require_POST
def study_issues_add_view(request: HttpRequest) -> HttpResponse:
    """Add the issues ticked on the issue search page to a study the user owns."""
    study_pk = ascii_int(request.POST.get("study"), max_digits=9)
    if study_pk is None:
        messages.error(request, "Choose the study to add the issues to.")
        return redirect(_back_to_search(request))
    study = study_get_for_user(user=request.user, pk=study_pk)
    if not can_manage_study(request.user, study):
        raise PermissionDenied("Only the study's owner can add issues to it.")
    chosen = (ascii_int(v) for v in request.POST.getlist("issue")[:MAX_ADDED_PER_REQUEST])
    ids = [number for number in chosen if number is not None]
    if not ids:
        messages.error(request, "Tick the issues to add first.")
        return redirect(_back_to_search(request))
    try:
        study_round = study_issues_add(study=study, actor=request.user, issue_ids=ids)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(_back_to_search(request))
    added = study_round.drawn
    plural = "s" if added != 1 else ""
    messages.success(request, f"Added {added} issue{plural} to {study.name} (round {study_round.number}).")
    return redirect("annotator:study_detail", pk=study.pk)


def _back_to_search(request: HttpRequest) -> str:
    # The search's query string, parsed and re-encoded: it only ever follows the search page's own path.
    query = QueryDict(request.POST.get("back", "")[:2000]).urlencode()
    return reverse("annotator:issue_list") + (f"?{query}" if query else "")


urlpatterns = [
    path("studies/", study_list, name="study_list"),
    path("studies/new/", study_new, name="study_create"),
    path("studies/<id:pk>/", study_detail, name="study_detail"),
    path("studies/<id:pk>/edit/", study_edit, name="study_edit"),
    path("studies/<id:pk>/draw/", study_draw, name="study_draw"),
    path("studies/add-issues/", study_issues_add_view, name="study_issues_add"),
]
