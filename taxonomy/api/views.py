"""Read-only taxonomy API: anyone may read published versions; drafts need a signed-in user."""

from collections import Counter

from django.db.models import Exists, OuterRef, Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.pagination import BoundedLimitOffsetPagination
from taxonomy import selectors
from taxonomy.models import Category, CategoryLineage, Taxonomy, TaxonomyVersion
from taxonomy.services.changelog import taxonomy_history_markdown, version_changelog_markdown

from .serializers import (
    TaxonomyDetailOutputSerializer,
    TaxonomyListOutputSerializer,
    TaxonomyVersionDetailOutputSerializer,
)

TAGS = ["taxonomies"]


def _visible_versions(request: Request):
    versions = TaxonomyVersion.objects.select_related("based_on").order_by("number")
    if not request.user.is_authenticated:
        versions = versions.filter(status=TaxonomyVersion.Status.PUBLISHED)
    return versions


def _taxonomies(request: Request):
    return Taxonomy.objects.prefetch_related(
        Prefetch("versions", queryset=_visible_versions(request), to_attr="visible_versions")
    ).order_by("name", "id")


def _counts(versions) -> dict[int, dict[str, int]]:
    rows = Category.objects.filter(
        dimension__version__in=[v.pk for v in versions], deprecated=False, selectable=True
    ).values_list("dimension__version_id", "dimension__key")
    counts: dict[int, Counter] = {}
    for version_id, key in rows:
        counts.setdefault(version_id, Counter())[key] += 1
    return {pk: dict(c) for pk, c in counts.items()}


class TaxonomyListApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="taxonomy_list",
        summary="Taxonomies with a version you may read (published ones; drafts too when signed in), by name",
        responses=TaxonomyListOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        readable = Exists(_visible_versions(request).filter(taxonomy=OuterRef("pk")))
        page = self.paginator.paginate_queryset(_taxonomies(request).filter(readable), request, view=self)
        return self.paginator.get_paginated_response(TaxonomyListOutputSerializer(page, many=True).data)


class TaxonomyDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(tags=TAGS, operation_id="taxonomy_detail", responses=TaxonomyDetailOutputSerializer)
    def get(self, request: Request, slug: str) -> Response:
        taxonomy = _taxonomies(request).filter(slug=slug).first()
        if taxonomy is None or not taxonomy.visible_versions:
            raise NotFound(f"There is no published taxonomy {slug!r}.")
        taxonomy.history = taxonomy_history_markdown(taxonomy=taxonomy, include_drafts=request.user.is_authenticated)
        context = {"counts": _counts(taxonomy.visible_versions)}
        return Response(TaxonomyDetailOutputSerializer(taxonomy, context=context).data)


def _tree(node) -> dict:
    c = node.category
    return {
        "id": c.pk,
        "code": c.code,
        "name": c.name,
        "definition": c.definition,
        "examples": c.examples,
        "aliases": c.aliases,
        "lineage_id": c.lineage_id,
        "deprecated": c.deprecated,
        "selectable": c.selectable,
        "distributed_specific": c.distributed_specific,
        "children": [_tree(child) for child in node.children],
    }


class TaxonomyVersionDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(tags=TAGS, operation_id="taxonomy_version_detail", responses=TaxonomyVersionDetailOutputSerializer)
    def get(self, request: Request, slug: str, number: int) -> Response:
        version = (
            TaxonomyVersion.objects.select_related("taxonomy", "based_on")
            .filter(taxonomy__slug=slug, number=number)
            .first()
        )
        if version is None:
            raise NotFound(f"There is no version {number} of taxonomy {slug!r}.")
        if not version.is_published and not request.user.is_authenticated:
            raise NotAuthenticated("Drafts are visible to signed-in users only.")
        trees = selectors.category_tree(version=version)
        lineage = (
            CategoryLineage.objects.filter(version=version)
            .exclude(operation=CategoryLineage.Operation.COPY)
            .select_related("actor")
            .order_by("at", "id")
        )
        data = {
            "version": version,
            "based_on": version.based_on.number if version.based_on_id else None,
            "changelog": version.changelog if version.is_published else version_changelog_markdown(version=version),
            "dimensions": [
                {
                    "key": tree.dimension.key,
                    "name": tree.dimension.name,
                    "multi_valued": tree.dimension.multi_valued,
                    "required": tree.dimension.required,
                    "category_count": sum(
                        1 for n in tree.walk() if n.category.selectable and not n.category.deprecated
                    ),
                    "categories": [_tree(root) for root in tree.roots],
                }
                for tree in trees
            ],
            "lineage": list(lineage),
        }
        return Response(TaxonomyVersionDetailOutputSerializer(data).data)
