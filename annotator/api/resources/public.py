"""The public API of published studies: no login, stable addresses by slug, raters pseudonymised.

Everything here is read from a release's frozen files, never from the study's live data:
``/public/studies/<slug>/releases/<n>/...`` is release n forever, and the unversioned addresses
(``/public/studies/<slug>/``, ``.../dataset/``, ``.../agreement/``, ``.../findings/``) show the latest visible
release and say which.
An unpublished (or unknown) slug, a hidden release and an unknown number answer 404 — never 403 — so a private
study's existence is not revealed. Anonymous clients are throttled by the "anon" rate.
"""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.api.resources.public_serializers import (
    PublicDatasetRowOutputSerializer,
    PublicFindingsOutputSerializer,
    PublicReleaseOutputSerializer,
    PublicStudyOutputSerializer,
    PublicStudySummaryOutputSerializer,
)
from annotator.exports.safe_csv import csv_rows
from annotator.models import Release
from annotator.selectors.releases import (
    latest_visible_releases,
    public_release_get,
    release_dataset,
    release_file_list,
    release_json,
    visible_releases,
)
from annotator.views.public import frozen_file_response

TAGS = ["public"]
NOT_FOUND = OpenApiResponse(
    description="No published study has this slug, or it has no visible release with this number (unpublished "
    "studies and hidden releases are not revealed)."
)
NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The release number: 1, 2, ..."
)


class DatasetCsvRenderer(BaseRenderer):
    """Declares text/csv so ``?format=csv`` is accepted; the view answers with the release's frozen file."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, dict) and "error" in data:
            return "".join(csv_rows(["error"], [[data["error"].get("message", "error")]])).encode()
        return b""


def _links(request: Request, release: Release, *, versioned: bool) -> dict[str, str]:
    slug, number = release.study.slug, release.number

    def absolute(name: str, *args, suffix: str = "") -> str:
        return request.build_absolute_uri(reverse(name, args=[slug, *args]) + suffix)

    if versioned:
        return {
            "page": absolute("annotator:public_release_page", number),
            "self": absolute("api:public_release", number),
            "dataset": absolute("api:public_release_dataset", number),
            "dataset_csv": absolute("api:public_release_dataset", number, suffix="?format=csv"),
            "agreement": absolute("api:public_release_agreement", number),
            "findings": absolute("api:public_release_findings", number),
            "releases": absolute("api:public_release_list"),
        }
    return {
        "page": absolute("annotator:public_study_page"),
        "self": absolute("api:public_study"),
        "dataset": absolute("api:public_study_dataset"),
        "dataset_csv": absolute("api:public_study_dataset", suffix="?format=csv"),
        "agreement": absolute("api:public_study_agreement"),
        "findings": absolute("api:public_study_findings"),
        "releases": absolute("api:public_release_list"),
        "release": absolute("api:public_release", number),
    }


def release_info(request: Request, release: Release) -> dict:
    """Which release this is: its number, date, change note, suggested citation and address."""
    return {
        "number": release.number,
        "published_at": release.created_at,
        "change_note": release.change_note,
        "citation": release.figures.get("citation", ""),
        "url": request.build_absolute_uri(reverse("api:public_release", args=[release.study.slug, release.number])),
        "page": request.build_absolute_uri(
            reverse("annotator:public_release_page", args=[release.study.slug, release.number])
        ),
    }


def _summary(request: Request, release: Release, frozen: dict, *, versioned: bool) -> dict:
    return {
        **{k: frozen[k] for k in ("slug", "name", "description", "raters_per_issue", "taxonomy", "issues", "excluded")},
        "published_at": release.created_at,
        "release": release_info(request, release),
        "links": _links(request, release, versioned=versioned),
    }


class PublicStudyListApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicStudySummaryOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="public_studies_list",
        summary="Published studies (no login needed), each as its latest visible release",
        responses=PublicStudySummaryOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        page = list(self.paginator.paginate_queryset(latest_visible_releases(), request, view=self))
        rows = [_summary(request, release, release.figures, versioned=False) for release in page]
        return self.paginator.get_paginated_response(PublicStudySummaryOutputSerializer(rows, many=True).data)


def _study_body(request: Request, release: Release, *, versioned: bool) -> dict:
    frozen = release_json(release=release, name="study.json")
    body = {**_summary(request, release, frozen, versioned=versioned), "dimensions": frozen["dimensions"]}
    if versioned:
        args = [release.study.slug, release.number]
        body["files"] = [
            {**f, "url": request.build_absolute_uri(reverse("annotator:public_release_file", args=[*args, f["name"]]))}
            for f in release_file_list(release=release)
        ]
    return body


class PublicStudyApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicStudyOutputSerializer

    @extend_schema(
        tags=TAGS,
        operation_id="public_study_retrieve",
        summary="A published study's latest release: summary, its taxonomy version with counts, which release",
        responses={200: PublicStudyOutputSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str) -> Response:
        release = public_release_get(slug=slug)
        return Response(PublicStudyOutputSerializer(_study_body(request, release, versioned=False)).data)


class PublicReleaseListApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicReleaseOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []
    queryset = Release.objects.none()  # the schema reads the model from it; get() reads through the selectors

    @extend_schema(
        tags=TAGS,
        operation_id="public_release_list",
        summary="The visible releases of a published study, oldest first",
        responses={200: PublicReleaseOutputSerializer(many=True), 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str) -> Response:
        latest = public_release_get(slug=slug)
        page = self.paginate_queryset(list(visible_releases(study=latest.study)))
        rows = [release_info(request, release) for release in page]
        return self.get_paginated_response(PublicReleaseOutputSerializer(rows, many=True).data)


class PublicReleaseApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicStudyOutputSerializer

    @extend_schema(
        tags=TAGS,
        operation_id="public_release_retrieve",
        summary="Release n of a published study, as frozen: summary, taxonomy with counts, files with SHA-256",
        parameters=[NUMBER],
        responses={200: PublicStudyOutputSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str, number: int) -> Response:
        release = public_release_get(slug=slug, number=number)
        return Response(PublicStudyOutputSerializer(_study_body(request, release, versioned=True)).data)


DATASET_DESCRIPTION = (
    "One row per resolved issue in sample order: the final category codes per dimension, how they were reached, "
    "and each rater's labels under a pseudonym (R1, R2, ...), revised and independent. `?format=csv` answers "
    "the whole dataset as the release's frozen CSV file, cells guarded against spreadsheet formulas."
)


class _DatasetApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicDatasetRowOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    renderer_classes = [JSONRenderer, DatasetCsvRenderer]
    filter_backends: list = []

    def dataset(self, request: Request, release: Release):
        if request.accepted_renderer.format == "csv":
            self.paginator.get_limit(request)  # the whole dataset, but a malformed limit/offset is still a 400
            self.paginator.get_offset(request)
            return frozen_file_response(release, "dataset.csv")
        page = self.paginator.paginate_queryset(release_dataset(release=release), request, view=self)
        response = self.paginator.get_paginated_response(PublicDatasetRowOutputSerializer(page, many=True).data)
        response["X-Release"] = str(release.number)
        return response


FORMAT = OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"], description="json or csv")
DATASET_RESPONSES = {
    (200, "application/json"): PublicDatasetRowOutputSerializer(many=True),
    (200, "text/csv"): OpenApiTypes.STR,
    404: NOT_FOUND,
}


class PublicStudyDatasetApi(_DatasetApi):
    @extend_schema(
        tags=TAGS,
        operation_id="public_study_dataset",
        summary="The final labelled dataset of a study's latest release (limit/offset), or the whole of it as CSV",
        description=DATASET_DESCRIPTION + " The `X-Release` header says which release it is.",
        parameters=[FORMAT],
        responses=DATASET_RESPONSES,
    )
    def get(self, request: Request, slug: str):
        return self.dataset(request, public_release_get(slug=slug))


class PublicReleaseDatasetApi(_DatasetApi):
    @extend_schema(
        tags=TAGS,
        operation_id="public_release_dataset",
        summary="The final labelled dataset of release n (limit/offset), or the whole of it as CSV",
        description=DATASET_DESCRIPTION,
        parameters=[NUMBER, FORMAT],
        responses=DATASET_RESPONSES,
    )
    def get(self, request: Request, slug: str, number: int):
        return self.dataset(request, public_release_get(slug=slug, number=number))


AGREEMENT_DESCRIPTION = (
    "The same report as `GET /api/v1/studies/{id}/agreement/` (per dimension: percent agreement, Cohen's kappa "
    "with its interval, Krippendorff's alpha, Gwet's AC1, per level, per rater pair, after discussion, confusion "
    "matrices) as frozen in the release, with rater ids and names replaced by R1, R2, ..."
)


def _agreement(request: Request, release: Release) -> Response:
    return Response(release_json(release=release, name="agreement.json") | {"release": release_info(request, release)})


class PublicStudyAgreementApi(generics.GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        operation_id="public_study_agreement",
        summary="Inter-rater agreement of a study's latest release, raters pseudonymised",
        description=AGREEMENT_DESCRIPTION,
        responses={200: OpenApiTypes.OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str) -> Response:
        return _agreement(request, public_release_get(slug=slug))


class PublicReleaseAgreementApi(generics.GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        operation_id="public_release_agreement",
        summary="Inter-rater agreement of release n, raters pseudonymised",
        description=AGREEMENT_DESCRIPTION,
        parameters=[NUMBER],
        responses={200: OpenApiTypes.OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str, number: int) -> Response:
        return _agreement(request, public_release_get(slug=slug, number=number))


FINDINGS_DESCRIPTION = (
    "The findings as frozen in the release's `findings.json`: every table of `GET /api/v1/studies/{id}/findings/` "
    "(fix size and time to fix per category and framework, components, distributed-specific shares, flows) and "
    "every test of `.../findings/tests/`, unpaged, as they were at publication. A release published before releases "
    "held findings answers 404."
)
FINDINGS_RESPONSES = {200: PublicFindingsOutputSerializer, 404: NOT_FOUND}


def _findings(request: Request, release: Release) -> Response:
    return Response(release_json(release=release, name="findings.json") | {"release": release_info(request, release)})


class PublicStudyFindingsApi(generics.GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        operation_id="public_study_findings",
        summary="The findings of a study's latest release: tables and statistical tests",
        description=FINDINGS_DESCRIPTION,
        responses=FINDINGS_RESPONSES,
    )
    def get(self, request: Request, slug: str) -> Response:
        return _findings(request, public_release_get(slug=slug))


class PublicReleaseFindingsApi(generics.GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        operation_id="public_release_findings",
        summary="The findings of release n: tables and statistical tests, as published",
        description=FINDINGS_DESCRIPTION,
        parameters=[NUMBER],
        responses=FINDINGS_RESPONSES,
    )
    def get(self, request: Request, slug: str, number: int) -> Response:
        return _findings(request, public_release_get(slug=slug, number=number))
