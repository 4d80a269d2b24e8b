"""Studies: list and detail (members pseudonymised for outsiders, progress counts), and category counts."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.api.resources import study_create
from annotator.api.resources.selectors import (
    studies_for_api,
    study_for_label_counts,
    study_get_for_api,
    study_member_rows,
    study_progress_for,
)
from annotator.api.resources.serializers import CategoryCountsOutputSerializer, StudyOutputSerializer
from annotator.models import Study
from annotator.selectors.publication import categories_of_version, category_counts, counts_by_dimension

TAGS = ["studies"]
SOURCES = ("final", "raters")


def _context(request: Request, studies: list[Study]) -> dict:
    return {
        "request": request,
        "members": {s.pk: study_member_rows(study=s, user=request.user) for s in studies},
        "progress": study_progress_for(user=request.user, studies=studies),
    }


class StudyListApi(generics.GenericAPIView):
    serializer_class = StudyOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="studies_list",
        summary="Studies I am a member of (all for staff) and every published study, with progress counts",
        responses=StudyOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        paginator = self.paginator
        page = list(paginator.paginate_queryset(studies_for_api(user=request.user), request, view=self))
        data = StudyOutputSerializer(page, many=True, context=_context(request, page)).data
        return paginator.get_paginated_response(data)

    @study_create.CREATE_SCHEMA
    @extend_schema(tags=TAGS)
    def post(self, request: Request) -> Response:
        study = study_create.study_create_from_api(request=request)
        study = study_get_for_api(user=request.user, pk=study.pk)
        return study_create.created_response(request, study, _context(request, [study]))


class StudyDetailApi(generics.GenericAPIView):
    serializer_class = StudyOutputSerializer

    @extend_schema(
        tags=TAGS,
        operation_id="studies_retrieve",
        summary="One study: settings, members and roles (pseudonymised for outsiders), progress counts",
        responses={200: StudyOutputSerializer, 404: OpenApiResponse(description="No such study, or not visible.")},
    )
    def get(self, request: Request, pk: int) -> Response:
        study = study_get_for_api(user=request.user, pk=pk)
        return Response(StudyOutputSerializer(study, context=_context(request, [study])).data)


class StudyCategoryCountsApi(generics.GenericAPIView):
    serializer_class = CategoryCountsOutputSerializer

    @extend_schema(
        tags=TAGS,
        operation_id="study_category_counts",
        summary="How often each category of the study's taxonomy version was chosen",
        description=(
            "`source=final` (default) counts the resolved final labels; `source=raters` counts every rater's "
            "submitted labels. Owners, adjudicators and staff may always read them; other members once the "
            "study is published or if it is not blind; anyone who can see a published study."
        ),
        parameters=[OpenApiParameter("source", OpenApiTypes.STR, enum=list(SOURCES), description="final or raters")],
        responses={
            200: CategoryCountsOutputSerializer,
            400: OpenApiResponse(description="Unknown source."),
            403: OpenApiResponse(description="A rater of a blind, unpublished study."),
            404: OpenApiResponse(description="No such study, or not visible to you."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        source = request.query_params.get("source", "final")
        if source not in SOURCES:
            raise ValidationError({"source": [f"Either 'final' or 'raters'; got '{source[:40]}'."]})
        study = study_for_label_counts(user=request.user, pk=pk)
        counted = category_counts(study=study, source=source)
        body = {
            "study": study.pk,
            "source": source,
            "issues": counted["issues"],
            "excluded": counted["excluded"],
            "dimensions": counts_by_dimension(categories_of_version(study=study), counted["counts"]),
        }
        return Response(CategoryCountsOutputSerializer(body).data)
