"""The owner's card-sorting board: sort raters' proposals into categories, then apply them to a draft."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from annotator.permissions import can_manage_study
from annotator.selectors.cardsort import cardsort_board
from annotator.selectors.studies import study_get_for_user
from annotator.services.cardsort import cardsort_apply, proposal_decide, proposal_decision_undo
from core.errors import DomainError


def _owned_study(request: HttpRequest, pk: int):
    study = study_get_for_user(user=request.user, pk=pk)
    if not can_manage_study(request.user, study):
        # Proposals show what raters wrote: blindness keeps them from other raters.
        raise PermissionDenied("Only the study's owner can sort proposals.")
    return study


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _answer(request: HttpRequest, study, *, error: DomainError | None = None, message: str = "") -> HttpResponse:
    if _wants_json(request):
        if error is not None:
            return JsonResponse({"error": {"message": error.message}}, status=error.status_code)
        return JsonResponse({"ok": True, "message": message})
    if error is not None:
        messages.error(request, error.message)
    elif message:
        messages.success(request, message)
    return redirect("annotator:study_cardsort", pk=study.pk)


@login_required
def study_cardsort(request: HttpRequest, pk: int) -> HttpResponse:
    study = _owned_study(request, pk)
    columns = cardsort_board(study=study)
    pending = sum(1 for c in columns for card in c.cards if card.decision and card.decision.applied_to_id is None)
    return render(
        request,
        "annotator/cardsort/board.html",
        {"study": study, "columns": columns, "pending": pending},
    )


@login_required
@require_POST
def study_cardsort_decide(request: HttpRequest, pk: int) -> HttpResponse:
    study = _owned_study(request, pk)
    data = request.POST
    try:
        decisions = proposal_decide(
            study=study,
            actor=request.user,
            dimension_key=data.get("dimension", ""),
            proposals=data.getlist("proposal"),
            action=data.get("action", ""),
            target_lineage_id=data.get("target") or None,
            new_category_name=data.get("name", ""),
            reason=data.get("reason", ""),
        )
    except DomainError as exc:
        return _answer(request, study, error=exc)
    return _answer(request, study, message=f"{len(decisions)} proposal(s) sorted.")


@login_required
@require_POST
def study_cardsort_undo(request: HttpRequest, pk: int) -> HttpResponse:
    study = _owned_study(request, pk)
    proposal_decision_undo(
        study=study,
        actor=request.user,
        dimension_key=request.POST.get("dimension", ""),
        proposal=request.POST.get("proposal", ""),
    )
    return _answer(request, study, message="Card put back on the board.")


@login_required
@require_POST
def study_cardsort_apply(request: HttpRequest, pk: int) -> HttpResponse:
    study = _owned_study(request, pk)
    try:
        draft = cardsort_apply(study=study, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:study_cardsort", pk=study.pk)
    messages.success(request, f"The sorted proposals are in draft v{draft.number}: review it, then publish.")
    return redirect(reverse("taxonomy:version_edit", args=[draft.taxonomy.slug, draft.number]))


urlpatterns = [
    path("studies/<id:pk>/cardsort/", study_cardsort, name="study_cardsort"),
    path("studies/<id:pk>/cardsort/decide/", study_cardsort_decide, name="study_cardsort_decide"),
    path("studies/<id:pk>/cardsort/undo/", study_cardsort_undo, name="study_cardsort_undo"),
    path("studies/<id:pk>/cardsort/apply/", study_cardsort_apply, name="study_cardsort_apply"),
]
