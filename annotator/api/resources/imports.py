"""Import jobs: study owners and staff follow their progress and read their problems."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.filters import ImportJobFilterSet
from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.api.permissions import CanManageImports
from annotator.api.resources.selectors import import_jobs_all
from annotator.api.resources.serializers import ImportJobDetailOutputSerializer, ImportJobOutputSerializer

TAGS = ["imports"]
DENIED = OpenApiResponse(description="Not a study owner or staff.")


class ImportJobListApi(generics.ListAPIView):
    serializer_class = ImportJobOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    permission_classes = [IsAuthenticated, CanManageImports]
    filterset_class = ImportJobFilterSet

    @extend_schema(tags=TAGS, operation_id="import_jobs_list", summary="Import jobs, newest first")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return import_jobs_all().defer("problems", "cursor")


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
        return import_jobs_all()
