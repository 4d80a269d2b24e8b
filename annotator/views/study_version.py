"""Moving a study to a later taxonomy version: preview what happens to every label, then confirm."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods

from annotator.models import StudyVersionMove
from annotator.permissions import can_manage_study
from annotator.selectors.studies import study_get_for_user
from annotator.services.migration import (
    agreement_per_version,
    study_version_move,
    study_version_preview,
    study_version_targets,
)
from core.errors import DomainError
from core.numbers import ascii_int


@login_required
@require_http_methods(["GET", "POST"])
def study_version(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    if not can_manage_study(request.user, study):
        raise PermissionDenied("Only the study's owner can change its taxonomy version.")
    targets = study_version_targets(study=study)
    by_pk = {str(v.pk): v for v in targets}
    chosen = by_pk.get(request.POST.get("to") or request.GET.get("to", ""))
    if request.method == "POST":
        if chosen is None:
            messages.error(request, "Choose a later published version of the taxonomy.")
            return redirect("annotator:study_version", pk=study.pk)
        try:
            expected = ascii_int(request.POST.get("from"))
            if expected is None:
                raise ValueError("no version")
            move = study_version_move(
                study=study, to_version=chosen, actor=request.user, expected_from_version=expected
            )
        except (DomainError, ValueError) as exc:
            messages.error(request, getattr(exc, "message", "The form was incomplete; reload the page."))
            return redirect("annotator:study_version", pk=study.pk)
        counts = move.counts
        messages.success(
            request,
            f"The study now uses v{chosen.number}: {counts['unchanged'] + counts['moved']} labels carried unchanged, "
            f"{counts['renamed']} renamed, {counts['merged']} merged, {counts['split'] + counts['deprecated']} "
            f"queued for re-labelling, {counts['from_proposals']} new from the raters' proposals, "
            f"{counts['proposals_to_relabel']} annotations queued for re-labelling for their proposals "
            f"({counts['reopened']} annotations reopened, "
            f"{counts.get('resolutions_reset', 0)} resolutions back to adjudication).",
        )
        return redirect("annotator:study_version", pk=study.pk)
    preview = None
    if chosen is not None:
        try:
            preview = study_version_preview(study=study, to_version=chosen)
        except DomainError as exc:
            messages.error(request, exc.message)
    moves = StudyVersionMove.objects.filter(study=study).select_related("from_version", "to_version", "actor")
    return render(
        request,
        "annotator/study_version/page.html",
        {
            "study": study,
            "targets": targets,
            "chosen": chosen,
            "preview": preview,
            "moves": moves.order_by("-at"),
            "agreement": agreement_per_version(study=study),
        },
    )


urlpatterns = [
    path("studies/<id:pk>/version/", study_version, name="study_version"),
]
