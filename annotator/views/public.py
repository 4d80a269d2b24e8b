"""Publication pages: the public page of a published study (no login), and the owner's publish buttons."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from annotator.selectors.publication import (
    categories_of_version,
    category_counts,
    counts_by_dimension,
    published_at,
    published_study_get,
)
from annotator.selectors.studies import study_get_for_user
from annotator.services.publication import study_publish, study_unpublish
from core.errors import DomainError


@require_GET
def public_study(request: HttpRequest, slug: str) -> HttpResponse:
    """Anyone may read a published study; any other slug is a 404 (private studies are not revealed)."""
    study = published_study_get(slug=slug)
    counted = category_counts(study=study, source="final")
    context = {
        "study": study,
        "published_at": published_at(study=study),
        "counted": counted,
        "dimensions": counts_by_dimension(categories_of_version(study=study), counted["counts"], full=True),
    }
    return render(request, "annotator/public/study.html", context)


@login_required
@require_POST
def study_publish_view(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    try:
        study_publish(study=study, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Published: anyone can now read this study at /p/{study.slug}/.")
    return redirect("annotator:study_detail", pk=study.pk)


@login_required
@require_POST
def study_unpublish_view(request: HttpRequest, pk: int) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    try:
        study_unpublish(study=study, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Unpublished: the study's public addresses answer 'not found' again.")
    return redirect("annotator:study_detail", pk=study.pk)


urlpatterns = [
    path("p/<slug:slug>/", public_study, name="public_study_page"),
    path("studies/<id:pk>/publish/", study_publish_view, name="study_publish"),
    path("studies/<id:pk>/unpublish/", study_unpublish_view, name="study_unpublish"),
]
