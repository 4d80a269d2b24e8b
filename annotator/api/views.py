"""The rater-flow API (the labelling page's script uses it too). Thin: parse, call a selector or service."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.api.serializers import (
    AnnotationDraftInputSerializer,
    AnnotationOutputSerializer,
    AnnotationSubmitInputSerializer,
    RaterAssignmentOutputSerializer,
    RaterNextAssignmentOutputSerializer,
)
from annotator.selectors.labelling import (
    annotation_get_for_user,
    assignment_next_for_rater,
    assignments_for_rater,
    rater_progress,
)
from annotator.selectors.studies import study_get_for_user
from annotator.services.annotations import annotation_save_draft, annotation_submit

TAGS = ["labelling"]
ERRORS = {
    400: OpenApiResponse(description="Invalid input, or a rule of the study was broken (message says which)."),
    403: OpenApiResponse(description="Not the rater of this annotation."),
    404: OpenApiResponse(description="No such annotation, or not visible to you."),
    409: OpenApiResponse(description="Changed in another tab or window, or frozen for adjudication."),
}


class RaterNextAssignmentApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_assignments_next",
        summary="My next unfinished assignment in a study (null when my queue is empty), with my progress",
        responses={200: RaterNextAssignmentOutputSerializer, 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        study = study_get_for_user(user=request.user, pk=pk)
        upcoming = assignment_next_for_rater(rater=request.user, study=study)
        rounds = rater_progress(rater=request.user, study=study)
        current = None
        if upcoming is not None:
            current = next(r for r in rounds if r["study_issue__round__number"] == upcoming.study_issue.round.number)
        elif rounds:
            current = rounds[-1]
        return Response(RaterNextAssignmentOutputSerializer({"assignment": upcoming, "progress": current}).data)


class RaterMyAssignmentsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_assignments_mine",
        summary="My assignments in a study, in queue order (paginated with limit/offset)",
        responses={200: RaterAssignmentOutputSerializer(many=True), 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        from rest_framework.pagination import LimitOffsetPagination

        study = study_get_for_user(user=request.user, pk=pk)
        queryset = assignments_for_rater(rater=request.user, study=study)
        status = request.query_params.get("status")
        if status:
            queryset = queryset.filter(status=status)
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(queryset, request, view=self)
        return paginator.get_paginated_response(RaterAssignmentOutputSerializer(page, many=True).data)


class AnnotationDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="annotation_retrieve",
        summary="One annotation: its rater, and the study's owners, adjudicators and staff may read it",
        responses={200: AnnotationOutputSerializer, 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        annotation = annotation_get_for_user(user=request.user, pk=pk)
        return Response(AnnotationOutputSerializer(annotation).data)


def _refetched(request: Request, pk: int) -> dict:
    return AnnotationOutputSerializer(annotation_get_for_user(user=request.user, pk=pk)).data


class AnnotationDraftApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="annotation_draft",
        summary="Save a draft (autosave); send the version you last saw",
        request=AnnotationDraftInputSerializer,
        responses={200: AnnotationOutputSerializer, **ERRORS},
    )
    def put(self, request: Request, pk: int) -> Response:
        annotation = annotation_get_for_user(user=request.user, pk=pk)
        data = AnnotationDraftInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation_save_draft(annotation=annotation, actor=request.user, **data.to_service_kwargs())
        return Response(_refetched(request, pk))


class AnnotationSubmitApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="annotation_submit",
        summary="Submit (or revise until every rater has submitted); required dimensions are checked",
        request=AnnotationSubmitInputSerializer,
        responses={200: AnnotationOutputSerializer, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        annotation = annotation_get_for_user(user=request.user, pk=pk)
        data = AnnotationSubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation_submit(annotation=annotation, actor=request.user, **data.to_service_kwargs())
        return Response(_refetched(request, pk))
