"""Resolutions API: the study's final dataset, and one issue's resolution (read, and record with PUT)."""

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.models import Resolution
from annotator.selectors.resolution_values import category_ids, proposals_of, resolution_labels
from annotator.selectors.resolutions import (
    independent_labels,
    proposal_choices,
    resolution_get,
    resolutions_for_study,
    study_issue_for_resolution,
)
from annotator.services.resolutions import resolution_record

TAGS = ["adjudication"]
STATUSES = list(Resolution.Status.values)
ERRORS = {
    400: OpenApiResponse(
        description="Invalid input, or a dimension in dispute was left undecided (message says which)."
    ),
    403: OpenApiResponse(description="Not an adjudicator or owner of the study; raters while the study is blind."),
    404: OpenApiResponse(description="No such study issue, not visible to you, or not resolved yet."),
    409: OpenApiResponse(
        description="Someone else changed the resolution first, or the issue is back with its raters."
    ),
}


class IndependentLabelsOutputSerializer(serializers.Serializer):
    rater = serializers.CharField()
    values = serializers.DictField(child=serializers.ListField(child=serializers.IntegerField()))
    proposals = serializers.DictField(child=serializers.CharField())
    excluded = serializers.BooleanField()
    excluded_reason = serializers.CharField()
    submitted_at = serializers.DateTimeField()


class ProposalOutputSerializer(serializers.Serializer):
    annotation = serializers.IntegerField(help_text="The rater's annotation that made the proposal.")
    text = serializers.CharField()


class ResolutionOutputSerializer(serializers.ModelSerializer):
    study_issue = serializers.IntegerField(source="study_issue_id")
    issue = serializers.IntegerField(source="study_issue.issue_id")
    issue_url = serializers.URLField(source="study_issue.issue.url")
    position = serializers.IntegerField(source="study_issue.position")
    values = serializers.SerializerMethodField(
        help_text=(
            "Final category ids per dimension key; only decided dimensions appear ([] for a dimension settled on "
            "a rater's proposal: see proposals)."
        )
    )
    proposals = serializers.SerializerMethodField(
        help_text="Dimensions the adjudicator settled on a rater's proposal: {key: {annotation, text}}."
    )
    proposal_choices = serializers.SerializerMethodField(
        help_text=(
            "The raters' proposals an adjudicator may settle a dimension on: {key: [{annotation, text}]}; send "
            "{key: annotation} as `proposals` when recording."
        )
    )
    methods = serializers.DictField(child=serializers.CharField(), help_text="Method per decided dimension key.")
    disagreements = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text=(
            "Every dimension key (and 'excluded') the raters ever disagreed on, including those they settled "
            "by discussion (their method is 'negotiated'); never shrinks."
        ),
    )
    independent = serializers.SerializerMethodField(
        help_text=(
            "Each rater's first, independent submission (before any discussion): rater (a name, or R1, R2 "
            "under anonymous adjudication), values, proposals, excluded, excluded_reason, submitted_at."
        )
    )
    decided_by = serializers.SerializerMethodField()

    class Meta:
        model = Resolution
        fields = [
            "study_issue",
            "issue",
            "issue_url",
            "position",
            "status",
            "values",
            "proposals",
            "proposal_choices",
            "methods",
            "excluded",
            "method",
            "disagreements",
            "independent",
            "disagreement_reason",
            "note",
            "decided_by",
            "decided_at",
            "version",
        ]

    @extend_schema_field(serializers.DictField(child=serializers.ListField(child=serializers.IntegerField())))
    def get_values(self, obj: Resolution) -> dict[str, list[int]]:
        return category_ids(resolution_labels(obj))

    @extend_schema_field(serializers.DictField(child=ProposalOutputSerializer()))
    def get_proposals(self, obj: Resolution) -> dict[str, dict]:
        return {
            key: {"annotation": p.annotation_id, "text": p.text}
            for key, p in proposals_of(resolution_labels(obj)).items()
        }

    @extend_schema_field(serializers.DictField(child=ProposalOutputSerializer(many=True)))
    def get_proposal_choices(self, obj: Resolution) -> dict[str, list[dict]]:
        return self.context["proposal_choices"].get(obj.study_issue_id, {})

    @extend_schema_field(IndependentLabelsOutputSerializer(many=True))
    def get_independent(self, obj: Resolution) -> list[dict]:
        return self.context["independent"].get(obj.study_issue_id, [])

    def get_decided_by(self, obj: Resolution) -> str | None:
        return obj.decided_by.username if obj.decided_by_id else None


class ResolutionRecordInputSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, help_text="The version you last saw (optimistic locking).")
    values = serializers.DictField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=1)),
        required=False,
        default=dict,
        help_text="Final category ids per dimension key; every dimension in dispute must be decided.",
    )
    proposals = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=dict,
        help_text=(
            "Dimensions to settle on a rater's proposal: {key: annotation id} (see proposal_choices); the final "
            "label becomes a category once the card board sorts the proposal and the study moves to that version."
        ),
    )
    excluded = serializers.BooleanField(required=False, default=False)
    method = serializers.ChoiceField(choices=[Resolution.Method.NEGOTIATED, Resolution.Method.ADJUDICATED])
    reason = serializers.ChoiceField(choices=Resolution.Reason.choices, required=False, default="")
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class StudyResolutionsApi(generics.GenericAPIView):
    permission_classes = [IsAuthenticated]
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="study_resolutions",
        summary="The study's resolutions in sample order (the final dataset; paginated with limit/offset)",
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=[*STATUSES, "all"],
                description="Only resolutions in this status; 'all' (the default) for every one.",
            )
        ],
        responses={200: ResolutionOutputSerializer(many=True), 400: ERRORS[400], 403: ERRORS[403], 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        study, resolutions = resolutions_for_study(user=request.user, pk=pk)
        status = request.query_params.get("status", "all")
        if status not in [*STATUSES, "all"]:
            raise ValidationError({"status": [f"One of {', '.join([*STATUSES, 'all'])}; got '{status[:40]}'."]})
        if status != "all":
            resolutions = resolutions.filter(status=status)
        page = self.paginator.paginate_queryset(resolutions, request, view=self)
        return self.paginator.get_paginated_response(
            ResolutionOutputSerializer(page, many=True, context=_context(request, study, page)).data
        )


def _context(request: Request, study, resolutions: list[Resolution]) -> dict:
    ids = [resolution.study_issue_id for resolution in resolutions]
    return {
        "independent": independent_labels(study=study, study_issue_ids=ids, viewer=request.user),
        "proposal_choices": proposal_choices(study_issue_ids=ids),
    }


class StudyIssueResolutionApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_issue_resolution",
        summary="One issue's resolution (404 until every rater has submitted)",
        responses={200: ResolutionOutputSerializer, 403: ERRORS[403], 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        study_issue = study_issue_for_resolution(user=request.user, pk=pk)
        resolution = resolution_get(study_issue=study_issue)
        context = _context(request, study_issue.study, [resolution])
        return Response(ResolutionOutputSerializer(resolution, context=context).data)

    @extend_schema(
        tags=TAGS,
        operation_id="study_issue_resolution_record",
        summary="Record (or revise) the final labels of an issue; send the version you last saw",
        request=ResolutionRecordInputSerializer,
        responses={200: ResolutionOutputSerializer, **ERRORS},
    )
    def put(self, request: Request, pk: int) -> Response:
        study_issue = study_issue_for_resolution(user=request.user, pk=pk, write=True)
        data = ResolutionRecordInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        payload = data.validated_data
        resolution_record(
            study_issue=study_issue,
            actor=request.user,
            values=payload["values"],
            proposals=payload["proposals"],
            excluded=payload["excluded"],
            method=payload["method"],
            reason=payload["reason"],
            note=payload["note"],
            expected_version=payload["version"],
        )
        resolution = resolution_get(study_issue=study_issue)
        context = _context(request, study_issue.study, [resolution])
        return Response(ResolutionOutputSerializer(resolution, context=context).data)


urlpatterns = [
    path("studies/<id:pk>/resolutions/", StudyResolutionsApi.as_view(), name="study_resolutions"),
    path("study-issues/<id:pk>/resolution/", StudyIssueResolutionApi.as_view(), name="study_issue_resolution"),
]
