"""Publication pages: the public pages of a published study's releases (no login), and the owner's
confirmations for publishing, unpublishing and publishing hidden releases again.

Public pages read a release's frozen files only: ``/p/<slug>/releases/<n>/`` is release n forever, and
``/p/<slug>/`` shows the latest visible release, saying which.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_GET, require_http_methods

from annotator.models import Release
from annotator.selectors.releases import (
    public_release_get,
    release_file_get,
    release_file_list,
    release_json,
    releases_with_visibility,
    visible_releases,
)
from annotator.selectors.studies import study_get_for_user
from annotator.services.publication import (
    CHANGE_NOTE_MAX,
    study_publish,
    study_publish_preview,
    study_republish,
    study_republish_preview,
    study_unpublish,
    study_unpublish_preview,
)
from core.errors import DomainError, PermissionDeniedError
from core.numbers import ascii_int


def _release_page(request: HttpRequest, slug: str, number: int | None) -> HttpResponse:
    release = public_release_get(slug=slug, number=number)
    summary = release_json(release=release, name="study.json")
    releases = list(visible_releases(study=release.study))
    context = {
        "release": release,
        "summary": summary,
        "latest": releases[-1].number == release.number,
        "versioned": number is not None,
        "releases": releases,
        "files": release_file_list(release=release),
        "dimensions": summary["dimensions"],
    }
    return render(request, "annotator/public/study.html", context)


@require_GET
def public_study(request: HttpRequest, slug: str) -> HttpResponse:
    """Anyone may read a published study's latest release; any other slug is a 404 (private studies are not
    revealed)."""
    return _release_page(request, slug, None)


@require_GET
def public_release(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    return _release_page(request, slug, number)


@require_GET
def public_release_list(request: HttpRequest, slug: str) -> HttpResponse:
    latest = public_release_get(slug=slug)
    summary = release_json(release=latest, name="study.json")
    releases = list(visible_releases(study=latest.study).order_by("-number"))
    return render(
        request, "annotator/public/releases.html", {"latest": latest, "summary": summary, "releases": releases}
    )


def frozen_file_response(release: Release, name: str) -> HttpResponse:
    """A release's file as an attachment, byte for byte as first served."""
    frozen = release_file_get(release=release, name=name)
    response = HttpResponse(bytes(frozen.content), content_type=frozen.content_type)
    response["ETag"] = f'"{frozen.sha256}"'
    response["Content-Disposition"] = f'attachment; filename="{release.study.slug}-release-{release.number}-{name}"'
    return response


@require_GET
def release_file(request: HttpRequest, slug: str, number: int, name: str) -> HttpResponse:
    """One frozen file of a visible release."""
    return frozen_file_response(public_release_get(slug=slug, number=number), name)


# --- the owner's confirmations ---------------------------------------------------------------------------


def _refused(request: HttpRequest, study, exc: DomainError) -> HttpResponse:
    messages.error(request, exc.message)
    return redirect("annotator:study_detail", pk=study.pk)


@login_required
@require_http_methods(["GET", "POST"])
def study_publish_view(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: what publishing would make (release n, counts, changes since the last release); POST: publish."""
    study = study_get_for_user(user=request.user, pk=pk)
    if request.method == "POST":
        note = request.POST.get("change_note", "")[: CHANGE_NOTE_MAX + 1]
        try:
            release = study_publish(
                study=study, actor=request.user, change_note=note, base_url=request.build_absolute_uri("/")
            )
        except DomainError as exc:
            if exc.field == "change_note":
                messages.error(request, exc.message)
                return redirect("annotator:study_publish", pk=study.pk)
            return _refused(request, study, exc)
        url = reverse("annotator:public_release_page", args=[study.slug, release.number])
        messages.success(request, f"Published release {release.number}: anyone can now read it at {url}.")
        return redirect("annotator:study_detail", pk=study.pk)
    try:
        preview = study_publish_preview(study=study, actor=request.user)
    except PermissionDeniedError as exc:
        return _refused(request, study, exc)
    return render(request, "annotator/public/confirm_publish.html", {"study": study, "preview": preview})


def _numbers(request: HttpRequest) -> list[int] | None:
    chosen = (ascii_int(n, max_digits=9) for n in request.POST.getlist("releases"))
    return [number for number in chosen if number is not None] or None


def _visibility_view(request: HttpRequest, pk: int, *, show: bool) -> HttpResponse:
    study = study_get_for_user(user=request.user, pk=pk)
    preview_of, write = (
        (study_republish_preview, study_republish) if show else (study_unpublish_preview, study_unpublish)
    )
    if request.method == "POST":
        try:
            result = write(
                study=study, actor=request.user, releases=_numbers(request), reason=request.POST.get("reason", "")
            )
        except DomainError as exc:
            return _refused(request, study, exc)
        shown = ", ".join(str(n) for n in result.changed)
        if show:
            messages.success(request, f"Release(s) {shown} can be read again at their addresses, unchanged.")
        else:
            messages.success(
                request, f"Release(s) {shown} hidden: their addresses answer 'not found'; nothing was deleted."
            )
        return redirect("annotator:study_detail", pk=study.pk)
    try:
        preview = preview_of(study=study, actor=request.user)
    except DomainError as exc:
        return _refused(request, study, exc)
    releases = list(releases_with_visibility(study=study).select_related("taxonomy_version__taxonomy"))
    context = {"study": study, "preview": preview, "releases": releases, "show": show}
    return render(request, "annotator/public/confirm_visibility.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def study_unpublish_view(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: which releases unpublishing hides and what happens to the phase; POST: hide them."""
    return _visibility_view(request, pk, show=False)


@login_required
@require_http_methods(["GET", "POST"])
def study_republish_view(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: which hidden releases would be shown again; POST: show them."""
    return _visibility_view(request, pk, show=True)


urlpatterns = [
    path("p/<slug:slug>/", public_study, name="public_study_page"),
    path("p/<slug:slug>/releases/", public_release_list, name="public_release_list_page"),
    path("p/<slug:slug>/releases/<id:number>/", public_release, name="public_release_page"),
    path("p/<slug:slug>/releases/<id:number>/files/<str:name>", release_file, name="public_release_file"),
    path("studies/<id:pk>/publish/", study_publish_view, name="study_publish"),
    path("studies/<id:pk>/unpublish/", study_unpublish_view, name="study_unpublish"),
    path("studies/<id:pk>/republish/", study_republish_view, name="study_republish"),
]
