"""Downloads and the paper's tables through the API.

GET  /api/v1/studies/{id}/exports/{what}.{format}     what: final | labels | taxonomy (streamed)
GET  /api/v1/studies/{id}/report/                     every table of the report as JSON
GET  /api/v1/studies/{id}/report/{table}.{format}     one table (of the report or the findings) as csv | tex | svg | png
GET  /api/v1/studies/{id}/findings/                   the findings: every table joining fixes and final labels
GET  /api/v1/studies/{id}/findings/tests/             the findings' statistical tests (limit/offset)
GET  /api/v1/studies/{id}/replication-packages/       the package builds (newest first, limit/offset)
POST /api/v1/studies/{id}/replication-packages/       build one (owners and staff)
GET  /api/v1/studies/{id}/replication-packages/{n}.zip
"""

from django.http import FileResponse, Http404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.models import ExportJob
from annotator.services.exports import (
    FORMATS,
    LABELS,
    TAXONOMY,
    export_access,
    export_stream,
    replication_package_request,
)
from annotator.services.exports.streams import CONTENT_TYPES
from annotator.services.findings import findings_as_json, stat_as_json, study_findings
from annotator.services.report import FORMATS as TABLE_FORMATS
from annotator.services.report import report_as_json, study_report
from annotator.views.exports import streaming_download
from annotator.views.report import report_table_response
from core.errors import DomainError

TAGS = ["exports"]
NOT_FOUND = OpenApiResponse(description="No such study, not visible to you, or no such file of it.")
FORBIDDEN = OpenApiResponse(description="A rater of a blind, unpublished study (labels and tables only).")


def _media_type(content_type: str) -> str:
    return content_type.split(";")[0].strip()


def _files(content_types: dict[str, str], description: str) -> dict:
    """One 200 answer per media type a download can have: JSON documents are objects, other files bytes."""
    answers: dict = {}
    for fmt, content_type in content_types.items():
        media_type = _media_type(content_type)
        kind = OpenApiTypes.OBJECT if media_type == "application/json" else OpenApiTypes.BINARY
        answers[(200, media_type)] = OpenApiResponse(response=kind, description=f"{description} ({fmt}).")
    return answers


# Binary formats first: a generated client reads the answer as the first media type it knows.
EXPORT_FORMATS = sorted({fmt for formats in FORMATS.values() for fmt in formats}, key=lambda f: (f == "json", f))


class ReportTableOutputSerializer(serializers.Serializer):
    slug = serializers.CharField(help_text="The table's name in `report/{slug}.{format}`.")
    title = serializers.CharField()
    header = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.ListField(child=serializers.JSONField()))
    note = serializers.CharField()


class ReportOutputSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    issues = serializers.IntegerField(help_text="Issues with a final label the tables count.")
    tables = ReportTableOutputSerializer(many=True)


class FindingsOutputSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    issues = serializers.IntegerField(help_text="Issues with a final label (resolved, not excluded).")
    issues_with_fix = serializers.IntegerField(help_text="Of those, the issues whose linked fix has fix data.")
    tables = ReportTableOutputSerializer(many=True)


class FindingsTestOutputSerializer(serializers.Serializer):
    family = serializers.CharField(help_text="The family the p-value was corrected in.")
    subject = serializers.CharField(help_text="What was compared, e.g. 'framework × root cause'.")
    test = serializers.CharField(help_text="The exact test used (chosen by the data for independence).")
    n = serializers.IntegerField()
    statistic = serializers.FloatField(allow_null=True)
    df = serializers.IntegerField(allow_null=True, help_text="Null for exact and simulated tests.")
    p = serializers.FloatField(allow_null=True, help_text="Null when the test is undefined on the data (see note).")
    p_corrected = serializers.FloatField(allow_null=True)
    correction = serializers.CharField()
    effect_name = serializers.CharField()
    effect_size = serializers.FloatField(allow_null=True)
    magnitude = serializers.CharField()
    note = serializers.CharField()


class ExportJobOutputSerializer(serializers.ModelSerializer):
    download = serializers.SerializerMethodField()

    class Meta:
        model = ExportJob
        fields = [
            "id",
            "status",
            "step",
            "progress_done",
            "progress_total",
            "size_bytes",
            "sha256",
            "counts",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "download",
        ]

    def get_download(self, job: ExportJob) -> str | None:
        if job.status != ExportJob.Status.DONE:
            return None
        return f"/api/v1/studies/{job.study_id}/replication-packages/{job.pk}.zip"


class ExportDownloadApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_export_download",
        summary="Final dataset, per-rater labels or taxonomy as a file, streamed",
        description=(
            "`final` and `labels` download as csv, json or jsonl; `taxonomy` as json, csv or md (the codebook). "
            "Another pair answers 404."
        ),
        parameters=[
            OpenApiParameter("what", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(FORMATS)),
            OpenApiParameter("fmt", OpenApiTypes.STR, OpenApiParameter.PATH, enum=EXPORT_FORMATS),
        ],
        responses={
            **_files({fmt: CONTENT_TYPES[fmt] for fmt in EXPORT_FORMATS}, "The file"),
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, pk: int, what: str, fmt: str):
        access = export_access(user=request.user, pk=pk, what=TAXONOMY if what == "taxonomy" else LABELS)
        try:
            stream = export_stream(access=access, what=what, fmt=fmt)
        except DomainError as exc:
            raise Http404(exc.message) from None
        return streaming_download(stream)


class ReportApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_report",
        summary="The paper's tables of a study (every table with its header and rows)",
        responses={200: ReportOutputSerializer, 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        return Response(ReportOutputSerializer(report_as_json(study_report(study=access.study))).data)


class ReportTableApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_report_table",
        summary="One table of the report or the findings as CSV, LaTeX, SVG or PNG",
        parameters=[OpenApiParameter("fmt", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(TABLE_FORMATS))],
        responses={**_files(TABLE_FORMATS, "The table"), 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int, slug: str, fmt: str):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        return report_table_response(access.study, slug, fmt)


class FindingsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_findings",
        summary="The findings: fix size and time per category and framework, components, flows, the tests",
        description="Each table also downloads as `report/{slug}.{format}` (csv, tex, and svg/png where charted).",
        responses={200: FindingsOutputSerializer, 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        findings = study_findings(study=access.study)
        return Response(FindingsOutputSerializer(findings_as_json(findings, access.study.pk)).data)


class FindingsTestsApi(generics.GenericAPIView):
    permission_classes = [IsAuthenticated]
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="study_findings_tests",
        summary="The findings' statistical tests, each with n, test, statistic, df, p, corrected p and effect size",
        responses={200: FindingsTestOutputSerializer(many=True), 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        tests = [stat_as_json(item) for item in study_findings(study=access.study).tests]
        page = self.paginator.paginate_queryset(tests, request, view=self)
        return self.paginator.get_paginated_response(FindingsTestOutputSerializer(page, many=True).data)


class ReplicationPackagesApi(generics.GenericAPIView):
    permission_classes = [IsAuthenticated]
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="study_replication_packages_list",
        summary="Replication package builds, newest first (paginated with limit/offset)",
        responses={200: ExportJobOutputSerializer(many=True), 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        jobs = ExportJob.objects.filter(study=access.study).order_by("-created_at", "-id")
        page = self.paginator.paginate_queryset(jobs, request, view=self)
        return self.paginator.get_paginated_response(ExportJobOutputSerializer(page, many=True).data)

    @extend_schema(
        tags=TAGS,
        operation_id="study_replication_packages_create",
        summary="Build a replication package (owners and staff); follow its progress in the list",
        request=None,
        responses={
            202: ExportJobOutputSerializer,
            403: OpenApiResponse(description="Not the study's owner."),
            404: NOT_FOUND,
            503: OpenApiResponse(description="The job queue cannot be reached; the build is sent later."),
        },
    )
    def post(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=TAXONOMY)
        if not access.manager:
            raise PermissionDenied("Only the study's owner can build its replication package.")
        job = replication_package_request(study=access.study, actor=request.user)
        job.refresh_from_db()
        return Response(ExportJobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ReplicationPackageDownloadApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_replication_package_download",
        summary="Download a built replication package (a ZIP file)",
        responses={
            (200, "application/zip"): OpenApiResponse(response=OpenApiTypes.BINARY, description="The ZIP file."),
            403: FORBIDDEN,
            404: OpenApiResponse(description="No such study, or no finished package with that number."),
        },
    )
    def get(self, request: Request, pk: int, job_pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        job = ExportJob.objects.filter(pk=job_pk, study=access.study, status=ExportJob.Status.DONE).first()
        if job is None or not job.file:
            raise Http404("No finished replication package with that number.")
        return FileResponse(
            job.file.open("rb"),
            as_attachment=True,
            filename=f"{access.study.slug}-replication.zip",
            content_type="application/zip",
        )


urlpatterns = [
    path("studies/<id:pk>/exports/<str:what>.<str:fmt>", ExportDownloadApi.as_view(), name="study_export"),
    path("studies/<id:pk>/report/", ReportApi.as_view(), name="study_report"),
    path("studies/<id:pk>/report/<slug:slug>.<str:fmt>", ReportTableApi.as_view(), name="study_report_table"),
    path("studies/<id:pk>/findings/", FindingsApi.as_view(), name="study_findings"),
    path("studies/<id:pk>/findings/tests/", FindingsTestsApi.as_view(), name="study_findings_tests"),
    path("studies/<id:pk>/replication-packages/", ReplicationPackagesApi.as_view(), name="study_replication_packages"),
    path(
        "studies/<id:pk>/replication-packages/<id:job_pk>.zip",
        ReplicationPackageDownloadApi.as_view(),
        name="study_replication_package",
    ),
]
