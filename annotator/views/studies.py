"""Study pages: the list, setting up a study, drawing a round, and the owner's dashboard."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods, require_POST

from annotator.forms.studies import SampleDrawForm, StudyCreateForm, StudyUpdateForm
from annotator.models import StudyMember
from annotator.permissions import can_manage_study, is_rater, study_roles
from annotator.selectors.pseudonyms import study_members_as_seen
from annotator.selectors.studies import (
    study_dashboard,
    study_get_for_user,
    study_list_rows,
    study_members,
    study_rounds,
)
from annotator.services.sampling import study_round_draw
from annotator.services.studies import study_create, study_update
from core.errors import DomainError
from core.permissions import can_manage_imports


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
    form = StudyCreateForm(request.POST or None)
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
            )
        except DomainError as exc:
            _form_error(form, exc)
        else:
            messages.success(
                request,
                f"Round {study_round.number}: drew {study_round.drawn} of {study_round.pool_size} matching issues "
                f"(seed {study_round.seed}) and assigned each to {study.raters_per_issue} raters.",
            )
            return redirect("annotator:study_detail", pk=study.pk)
    return render(
        request, "annotator/studies/draw.html", {"study": study, "form": form, "rounds": study_rounds(study=study)}
    )


urlpatterns = [
    path("studies/", study_list, name="study_list"),
    path("studies/new/", study_new, name="study_create"),
    path("studies/<id:pk>/", study_detail, name="study_detail"),
    path("studies/<id:pk>/edit/", study_edit, name="study_edit"),
    path("studies/<id:pk>/draw/", study_draw, name="study_draw"),
]
