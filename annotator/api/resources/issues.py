"""Repositories and issues: every signed-in user may read them (blindness concerns labels, not issues)."""

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.filters import IssueFilterSet
from annotator.api.pagination import BoundedLimitOffsetPagination, IssueCursorPagination
from annotator.api.resources.selectors import repositories_with_counts
from annotator.api.resources.serializers import (
    IssueDetailOutputSerializer,
    IssueListOutputSerializer,
    RepositoryOutputSerializer,
)
from annotator.models import Issue
from annotator.selectors.fixes import issue_fixes
from annotator.selectors.issues import issue_get

NOT_FOUND = OpenApiResponse(description="No such object.")


@extend_schema(tags=["issues"])
class RepositoryListApi(generics.ListAPIView):
    serializer_class = RepositoryOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(operation_id="repositories_list", summary="Repositories, with how many issues each has")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return repositories_with_counts()


@extend_schema(tags=["issues"])
class RepositoryDetailApi(generics.RetrieveAPIView):
    serializer_class = RepositoryOutputSerializer

    @extend_schema(
        operation_id="repositories_retrieve",
        summary="One repository",
        responses={200: RepositoryOutputSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return repositories_with_counts()


@extend_schema(tags=["issues"])
class IssueListApi(generics.ListAPIView):
    serializer_class = IssueListOutputSerializer
    pagination_class = IssueCursorPagination
    filterset_class = IssueFilterSet
    queryset = Issue.objects.none()  # the filter set reads through annotator.selectors.issues

    @extend_schema(
        operation_id="issues_list",
        summary="Issues, newest first: filters, full-text search, cursor pagination",
        responses={200: IssueListOutputSerializer(many=True), 400: OpenApiResponse(description="A bad filter.")},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


@extend_schema(tags=["issues"])
class IssueDetailApi(generics.GenericAPIView):
    serializer_class = IssueDetailOutputSerializer

    @extend_schema(
        operation_id="issues_retrieve",
        summary="One issue with its comments (in order), the pull requests / commits linked to it and its fix effort",
        responses={200: IssueDetailOutputSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        issue = issue_get(pk=pk)
        if issue is None:
            raise Http404("No such issue.")
        issue.fix = issue_fixes([issue.pk])[issue.pk]
        return Response(IssueDetailOutputSerializer(issue).data)
