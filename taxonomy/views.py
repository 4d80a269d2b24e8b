"""Browsing taxonomies: the list of taxonomies and one version's dimensions and category trees."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import NotFoundError
from taxonomy import selectors


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
        {"version": version, "taxonomy": version.taxonomy, "trees": trees},
    )
