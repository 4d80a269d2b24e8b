"""The rater-flow API (the labelling page's script uses it too). Thin: parse, call a selector or service."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from annotator.api.serializers import (
    AnnotationDraftInputSerializer,
    AnnotationOutputSerializer,
    AnnotationSubmitInputSerializer,
    RaterAssignmentOutputSerializer,
    RaterAssignmentPageInputSerializer,
    RaterAssignmentPageOutputSerializer,
    RaterNextAssignmentOutputSerializer,
    RaterProgressOutputSerializer,
)
from annotator.selectors.labelling import (
    annotation_get_for_user,
    assignment_next_for_rater,
    assignment_page_for_rater,
    current_round_progress,
    rater_assignment_count,
    rater_progress,
    study_get_with_roles,
)
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
        study = study_get_with_roles(user=request.user, pk=pk)
        upcoming = assignment_next_for_rater(rater=request.user, study=study)
        rounds = rater_progress(rater=request.user, study=study)
        current = current_round_progress(rounds, upcoming)
        progress = RaterProgressOutputSerializer(current).data if current else None
        assignment = RaterAssignmentOutputSerializer(upcoming).data if upcoming else None
        return Response({"assignment": assignment, "progress": progress})


class RaterMyAssignmentsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_assignments_mine",
        summary="My assignments in a study, in queue order (keyset pages: follow `next`)",
        parameters=[RaterAssignmentPageInputSerializer],
        responses={200: RaterAssignmentPageOutputSerializer, 400: ERRORS[400], 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        study = study_get_with_roles(user=request.user, pk=pk)
        query = RaterAssignmentPageInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        status, limit = query.validated_data.get("status") or None, query.validated_data["limit"]
        page, after = assignment_page_for_rater(
            rater=request.user, study=study, status=status, after=query.validated_data.get("after"), limit=limit
        )
        following = None
        if after is not None:
            following = replace_query_param(request.build_absolute_uri(), "after", after)
        return Response(
            {
                "count": rater_assignment_count(rater=request.user, study=study, status=status),
                "next": following,
                "results": RaterAssignmentOutputSerializer(page, many=True).data,
            }
        )


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
        return Response(AnnotationOutputSerializer(annotation, context={"viewer": request.user}).data)


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
        data = AnnotationDraftInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # The service answers 404 for an annotation the user may not see, 403 for one they may only see.
        saved = annotation_save_draft(annotation=pk, actor=request.user, **data.to_service_kwargs())
        return Response(AnnotationOutputSerializer(saved).data)


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
        data = AnnotationSubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        submitted = annotation_submit(annotation=pk, actor=request.user, **data.to_service_kwargs())
        return Response(AnnotationOutputSerializer(submitted).data)
