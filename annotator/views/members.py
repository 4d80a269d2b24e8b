"""Study members: the owner adds people by username or e-mail, changes their role, or removes them."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import path
from django.views.decorators.http import require_POST

from annotator.permissions import can_manage_study
from annotator.selectors.studies import study_get_for_user
from annotator.services.studies import (
    study_member_add,
    study_member_find_user,
    study_member_remove,
    study_member_set_role,
)
from core.errors import DomainError


def _managed_study(request: HttpRequest, pk: int):
    study = study_get_for_user(user=request.user, pk=pk)
    if not can_manage_study(request.user, study):
        raise PermissionDenied("Only the study's owner can manage its members.")
    return study


def _back(study) -> HttpResponse:
    return redirect(f"/studies/{study.pk}/#members")


def _act(request: HttpRequest, study, write, success: str) -> HttpResponse:
    """Run one member service; its refusal becomes a message on the study page, never an error page."""
    try:
        member = write()
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, success.format(member=member, role=member and member.get_role_display().lower()))
    return _back(study)


@login_required
@require_POST
def member_add(request: HttpRequest, pk: int) -> HttpResponse:
    study = _managed_study(request, pk)

    def write():
        user = study_member_find_user(who=request.POST.get("who", ""))
        return study_member_add(study=study, actor=request.user, user=user, role=request.POST.get("role", ""))

    return _act(request, study, write, "{member.user} is now {role} of this study.")


@login_required
@require_POST
def member_role(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    study = _managed_study(request, pk)
    role = request.POST.get("role", "")
    return _act(
        request,
        study,
        lambda: study_member_set_role(study=study, actor=request.user, member=member_pk, role=role),
        "{member.user} is now {role} of this study.",
    )


@login_required
@require_POST
def member_remove(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    study = _managed_study(request, pk)
    return _act(
        request,
        study,
        lambda: study_member_remove(study=study, actor=request.user, member=member_pk),
        "Member removed; their labels stay in the study.",
    )


urlpatterns = [
    path("studies/<id:pk>/members/add/", member_add, name="study_member_add"),
    path("studies/<id:pk>/members/<id:member_pk>/role/", member_role, name="study_member_role"),
    path("studies/<id:pk>/members/<id:member_pk>/remove/", member_remove, name="study_member_remove"),
]
