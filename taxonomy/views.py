"""Browsing taxonomies (the list, one version's trees) and editing drafts in the browser."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.errors import ConflictError, DomainError, NotFoundError
from core.numbers import ascii_int
from taxonomy import selectors
from taxonomy.services.changelog import version_changelog_markdown, version_publish_preview
from taxonomy.services.operations import (
    EDIT_DENIED,
    can_edit_taxonomy,
    operation_run,
    version_draft_from,
    version_publish_with_changelog,
)


@login_required
def taxonomy_list(request: HttpRequest) -> HttpResponse:
    return render(request, "taxonomy/taxonomy_list.html", {"taxonomies": selectors.taxonomy_list()})


@login_required
def version_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    try:
        version = selectors.version_get(slug=slug, number=number)
    except NotFoundError as exc:
        raise Http404(exc.message) from exc
    trees = selectors.category_tree(version=version)
    return render(
        request,
        "taxonomy/version_detail.html",
        {
            "version": version,
            "taxonomy": version.taxonomy,
            "trees": trees,
            "can_edit": can_edit_taxonomy(request.user),
        },
    )


# Editing drafts. Who may edit: taxonomy maintainers and staff (`can_edit_taxonomy`); the services check it again.


def _editor_version(request: HttpRequest, slug: str, number: int):
    if not can_edit_taxonomy(request.user):
        raise PermissionDenied(EDIT_DENIED)
    try:
        return selectors.version_get(slug=slug, number=number)
    except NotFoundError as exc:
        raise Http404(exc.message) from exc


def _edit_page(request: HttpRequest, version, *, status: int = 200) -> HttpResponse:
    trees = selectors.category_tree(version=version)
    choices = [
        {"dimension": tree.dimension, "nodes": [node for node in tree.walk() if not node.category.deprecated]}
        for tree in trees
    ]
    changelog = version_changelog_markdown(version=version) if not version.is_published else version.changelog
    return render(
        request,
        "taxonomy/edit/editor.html",
        {"version": version, "taxonomy": version.taxonomy, "trees": trees, "choices": choices, "changelog": changelog},
        status=status,
    )


@login_required
def version_edit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    return _edit_page(request, _editor_version(request, slug, number))


@login_required
@require_POST
def version_edit_apply(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    version = _editor_version(request, slug, number)
    try:
        message = operation_run(version=version, actor=request.user, data=request.POST)
    except DomainError as exc:
        messages.error(request, exc.message)
        if isinstance(exc, ConflictError):
            version.refresh_from_db()
            return _edit_page(request, version, status=409)
    else:
        messages.success(request, message)
    return redirect("taxonomy:version_edit", slug=slug, number=number)


@login_required
@require_POST
def version_new_draft(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    version = _editor_version(request, slug, number)
    try:
        draft = version_draft_from(version=version, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("taxonomy:version_edit", slug=slug, number=number)
    messages.success(request, f"Draft v{draft.number} follows v{version.number}; edit it here.")
    return redirect("taxonomy:version_edit", slug=slug, number=draft.number)


@login_required
@require_http_methods(["GET", "POST"])
def version_publish_draft(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """GET: what publishing the draft fixes for good (edits counted, categories before and after); POST: publish."""
    version = _editor_version(request, slug, number)
    if request.method == "GET":
        if version.is_published:
            messages.error(request, f"v{number} is already published.")
            return redirect("taxonomy:version_detail", slug=slug, number=number)
        context = {
            "version": version,
            "taxonomy": version.taxonomy,
            # The form posts the revision the counts were made from: an edit in between makes the publish a conflict.
            "preview": version_publish_preview(version=version),
        }
        return render(request, "taxonomy/edit/confirm_publish.html", context)
    try:
        version_publish_with_changelog(
            version=version, actor=request.user, expected_revision=ascii_int(request.POST.get("revision"))
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("taxonomy:version_edit", slug=slug, number=number)
    messages.success(request, f"v{number} is published. Studies can now move to it from their version page.")
    return redirect("taxonomy:version_detail", slug=slug, number=number)
