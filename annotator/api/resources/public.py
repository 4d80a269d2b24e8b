"""The public API of published studies: no login, stable addresses by slug, raters pseudonymised.

An unpublished (or unknown) slug answers 404 — never 403 — so a private study's existence is not revealed.
Anonymous clients are throttled by the "anon" rate.
"""

from collections.abc import Iterator

from django.http import StreamingHttpResponse
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
    PublicStudyOutputSerializer,
    PublicStudySummaryOutputSerializer,
)
from annotator.exports.safe_csv import csv_rows
from annotator.models import Study
from annotator.selectors.publication import (
    DatasetContext,
    categories_of_version,
    category_counts,
    counts_by_dimension,
    dataset_queryset,
    dataset_rows,
    member_pseudonyms,
    pseudonymised_agreement,
    published_at,
    published_studies,
    published_study_get,
    resolved_counts,
)

TAGS = ["public"]
NOT_FOUND = OpenApiResponse(description="No published study has this slug (unpublished studies are not revealed).")
CSV_CHUNK = 500


class DatasetCsvRenderer(BaseRenderer):
    """Declares text/csv so ``?format=csv`` is accepted; the view streams the file itself."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, dict) and "error" in data:
            return "".join(csv_rows(["error"], [[data["error"].get("message", "error")]])).encode()
        return b""


def _links(request: Request, study: Study) -> dict[str, str]:
    def absolute(name: str, suffix: str = "") -> str:
        return request.build_absolute_uri(reverse(name, args=[study.slug]) + suffix)

    return {
        "page": absolute("annotator:public_study_page"),
        "self": absolute("api:public_study"),
        "dataset": absolute("api:public_study_dataset"),
        "dataset_csv": absolute("api:public_study_dataset", "?format=csv"),
        "agreement": absolute("api:public_study_agreement"),
    }


def _summary(request: Request, study: Study, counted: dict) -> dict:
    version = study.taxonomy_version
    return {
        "slug": study.slug,
        "name": study.name,
        "description": study.description,
        "published_at": published_at(study=study),
        "raters_per_issue": study.raters_per_issue,
        "taxonomy": {
            "slug": version.taxonomy.slug,
            "name": version.taxonomy.name,
            "version": version.number,
            "citation": version.taxonomy.citation,
            "license": version.taxonomy.license,
        },
        "issues": counted["issues"],
        "excluded": counted["excluded"],
        "links": _links(request, study),
    }


class PublicStudyListApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicStudySummaryOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="public_studies_list",
        summary="Published studies (no login needed)",
        responses=PublicStudySummaryOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        page = list(self.paginator.paginate_queryset(published_studies(), request, view=self))
        counts = resolved_counts(study_ids=[study.pk for study in page])
        rows = [_summary(request, study, counts[study.pk]) for study in page]
        return self.paginator.get_paginated_response(PublicStudySummaryOutputSerializer(rows, many=True).data)


class PublicStudyApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicStudyOutputSerializer

    @extend_schema(
        tags=TAGS,
        operation_id="public_study_retrieve",
        summary="A published study: summary, its taxonomy version (definitions, examples, provenance) with counts",
        responses={200: PublicStudyOutputSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str) -> Response:
        study = published_study_get(slug=slug)
        counted = category_counts(study=study, source="final")
        body = {
            **_summary(request, study, counted),
            "dimensions": counts_by_dimension(categories_of_version(study=study), counted["counts"], full=True),
        }
        return Response(PublicStudyOutputSerializer(body).data)


def _csv(context: DatasetContext) -> Iterator[str]:
    keys = context.dimension_keys
    header = ["position", "round", "repository", "number", "url", "title", "excluded", "method"]
    header += [*keys, *(f"{key}_raters" for key in keys), *(f"{key}_raters_independent" for key in keys)]
    header += ["disagreements", "disagreement_reason", "note"]

    def per_rater(raters: list[dict], key: str, *, independent: bool) -> str:
        cells = []
        for rater in raters:
            layer = rater["independent"] if independent else rater
            if layer is None:
                continue
            shown = [*layer["labels"].get(key, []), *(f"proposed: {p}" for p in [layer["proposals"].get(key)] if p)]
            cells.append(f"{rater['rater']}: {', '.join(shown)}")
        return "; ".join(cells)

    def rows() -> Iterator[list]:
        queryset = dataset_queryset(study=context.study)
        last = -1
        while True:  # keyset chunks on position: memory stays flat however large the dataset
            chunk = list(queryset.filter(study_issue__position__gt=last)[:CSV_CHUNK])
            if not chunk:
                return
            last = chunk[-1].study_issue.position
            for row in dataset_rows(context=context, resolutions=chunk):
                issue = row["issue"]
                yield [
                    row["position"],
                    row["round"],
                    issue["repository"] or "",
                    issue["number"] if issue["number"] is not None else "",
                    issue["url"],
                    issue["title"],
                    row["excluded"],
                    row["method"],
                    *("; ".join(row["labels"].get(key, [])) for key in keys),
                    *(per_rater(row["raters"], key, independent=False) for key in keys),
                    *(per_rater(row["raters"], key, independent=True) for key in keys),
                    "; ".join(row["disagreements"]),
                    row["disagreement_reason"],
                    row["note"],
                ]

    return csv_rows(header, rows())


class PublicStudyDatasetApi(generics.GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = PublicDatasetRowOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    renderer_classes = [JSONRenderer, DatasetCsvRenderer]
    filter_backends: list = []

    @extend_schema(
        tags=TAGS,
        operation_id="public_study_dataset",
        summary="The final labelled dataset of a published study (limit/offset), or the whole of it as CSV",
        description=(
            "One row per resolved issue in sample order: the final category codes per dimension, how they "
            "were reached, and each rater's labels under a pseudonym (R1, R2, ...). `?format=csv` streams "
            "the whole dataset as one CSV file, cells guarded against spreadsheet formulas."
        ),
        parameters=[OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"], description="json or csv")],
        responses={
            (200, "application/json"): PublicDatasetRowOutputSerializer(many=True),
            (200, "text/csv"): OpenApiTypes.STR,
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, slug: str):
        study = published_study_get(slug=slug)
        context = DatasetContext(study)
        if request.accepted_renderer.format == "csv":
            self.paginator.get_limit(request)  # the whole dataset, but a malformed limit/offset is still a 400
            self.paginator.get_offset(request)
            response = StreamingHttpResponse(_csv(context), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{study.slug}-dataset.csv"'
            return response
        page = self.paginator.paginate_queryset(dataset_queryset(study=study), request, view=self)
        rows = dataset_rows(context=context, resolutions=list(page))
        return self.paginator.get_paginated_response(PublicDatasetRowOutputSerializer(rows, many=True).data)


class PublicStudyAgreementApi(generics.GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        operation_id="public_study_agreement",
        summary="Inter-rater agreement of a published study, raters pseudonymised",
        description=(
            "The same report as `GET /api/v1/studies/{id}/agreement/` (per dimension: percent agreement, "
            "Cohen's kappa with its interval, Krippendorff's alpha, Gwet's AC1, per level, per rater pair, "
            "after discussion, confusion matrices), with rater ids and names replaced by R1, R2, ..."
        ),
        responses={200: OpenApiTypes.OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, slug: str) -> Response:
        # Imported here: the agreement code brings numpy, scipy and statsmodels, which a web worker that serves
        # only raters never needs in memory.
        from annotator.services.agreement import agreement_report

        study = published_study_get(slug=slug)
        report = pseudonymised_agreement(
            report=agreement_report(study=study), pseudonyms=member_pseudonyms(study=study)
        )
        return Response(
            {"study": {"slug": study.slug, "name": study.name, "agreement_threshold": float(study.agreement_threshold)}}
            | report
        )
