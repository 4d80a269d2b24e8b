"""Import jobs: study owners and staff follow the progress of the jobs they may see (annotator.selectors.imports:
their own, their studies' spreadsheet imports, GitHub syncs; staff every job) and read their problems."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.filters import ImportJobFilterSet
from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.api.permissions import CanManageImports
from annotator.api.resources.serializers import ImportJobDetailOutputSerializer, ImportJobOutputSerializer
from annotator.models import ImportJob
from annotator.selectors.imports import import_jobs_visible

TAGS = ["imports"]
DENIED = OpenApiResponse(description="Not a study owner or staff.")


def _visible(view):
    if getattr(view, "swagger_fake_view", False):  # the schema generator: no user to scope by
        return ImportJob.objects.none()
    return import_jobs_visible(user=view.request.user).select_related("created_by").order_by("-created_at", "-id")


class ImportJobListApi(generics.ListAPIView):
    serializer_class = ImportJobOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    permission_classes = [IsAuthenticated, CanManageImports]
    filterset_class = ImportJobFilterSet

    @extend_schema(tags=TAGS, operation_id="import_jobs_list", summary="Import jobs, newest first")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return _visible(self).defer("problems", "cursor")


class ImportJobDetailApi(generics.RetrieveAPIView):
    serializer_class = ImportJobDetailOutputSerializer
    permission_classes = [IsAuthenticated, CanManageImports]

    @extend_schema(
        tags=TAGS,
        operation_id="import_jobs_retrieve",
        summary="One import job: status, progress, counts and the problems found",
        responses={200: ImportJobDetailOutputSerializer, 403: DENIED, 404: OpenApiResponse(description="No such job.")},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return _visible(self)  # a job the user may not see is answered 404
