"""Downloads and the paper's tables through the API.

GET  /api/v1/studies/{id}/exports/{what}.{format}     what: final | labels | taxonomy (streamed)
GET  /api/v1/studies/{id}/report/                     every table of the report as JSON
GET  /api/v1/studies/{id}/report/{table}.{format}     one table as csv | tex | svg
GET  /api/v1/studies/{id}/replication-packages/       the package builds (newest first)
POST /api/v1/studies/{id}/replication-packages/       build one (owners and staff)
GET  /api/v1/studies/{id}/replication-packages/{n}.zip
"""

from django.http import FileResponse, Http404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.models import ExportJob
from annotator.services.exports import LABELS, TAXONOMY, export_access, export_stream, replication_package_request
from annotator.services.report import report_as_json, study_report
from annotator.views.exports import streaming_download
from annotator.views.report import report_table_response
from core.errors import DomainError

FILE = OpenApiResponse(response=OpenApiTypes.BINARY, description="The file, streamed.")


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

    @extend_schema(responses={200: FILE}, summary="Final dataset, per-rater labels or taxonomy as a file")
    def get(self, request: Request, pk: int, what: str, fmt: str):
        access = export_access(user=request.user, pk=pk, what=TAXONOMY if what == "taxonomy" else LABELS)
        try:
            stream = export_stream(access=access, what=what, fmt=fmt)
        except DomainError as exc:
            raise Http404(exc.message) from None
        return streaming_download(stream)


class ReportApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="The paper's tables of a study")
    def get(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        return Response(report_as_json(study_report(study=access.study)))


class ReportTableApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: FILE}, summary="One table of the report as CSV, LaTeX or SVG")
    def get(self, request: Request, pk: int, slug: str, fmt: str):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        return report_table_response(access.study, slug, fmt)


class ReplicationPackagesApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=ExportJobOutputSerializer(many=True), summary="Replication package builds")
    def get(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        jobs = ExportJob.objects.filter(study=access.study)[:20]
        return Response(ExportJobOutputSerializer(jobs, many=True).data)

    @extend_schema(request=None, responses={202: ExportJobOutputSerializer}, summary="Build a replication package")
    def post(self, request: Request, pk: int):
        access = export_access(user=request.user, pk=pk, what=TAXONOMY)
        if not access.manager:
            raise PermissionDenied("Only the study's owner can build its replication package.")
        job = replication_package_request(study=access.study, actor=request.user)
        job.refresh_from_db()
        return Response(ExportJobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ReplicationPackageDownloadApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: FILE}, summary="Download a built replication package")
    def get(self, request: Request, pk: int, job_pk: int):
        access = export_access(user=request.user, pk=pk, what=LABELS)
        job = ExportJob.objects.filter(pk=job_pk, study=access.study, status=ExportJob.Status.DONE).first()
        if job is None or not job.file:
            raise Http404("No finished replication package with that number.")
        return FileResponse(job.file.open("rb"), as_attachment=True, filename=f"{access.study.slug}-replication.zip")


urlpatterns = [
    path("studies/<id:pk>/exports/<str:what>.<str:fmt>", ExportDownloadApi.as_view(), name="study_export"),
    path("studies/<id:pk>/report/", ReportApi.as_view(), name="study_report"),
    path("studies/<id:pk>/report/<slug:slug>.<str:fmt>", ReportTableApi.as_view(), name="study_report_table"),
    path("studies/<id:pk>/replication-packages/", ReplicationPackagesApi.as_view(), name="study_replication_packages"),
    path(
        "studies/<id:pk>/replication-packages/<id:job_pk>.zip",
        ReplicationPackageDownloadApi.as_view(),
        name="study_replication_package",
    ),
]
