"""GET /api/v1/: the index of the API's resources, each with its address, so a client can start from one URL."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

# (name, URL name, who may read it, what it holds). Per-object addresses (a study's agreement, an
# annotation, a taxonomy's version) are in each object's answer and in the schema.
RESOURCES = [
    ("repositories", "api:repository_list", "signed in", "Repositories, with how many issues each has."),
    ("issues", "api:issue_list", "signed in", "Issues, newest first: filters, full-text search, cursor pages."),
    ("studies", "api:study_list", "signed in", "My studies and every published one, with progress counts."),
    ("my-annotations", "api:me_annotations", "signed in", "My own annotations in every study."),
    ("import-jobs", "api:import_job_list", "study owners, staff", "Import jobs: progress, counts, problems."),
    ("taxonomies", "api:taxonomy_list", "anyone", "Taxonomies and their versions (drafts when signed in)."),
    ("public-studies", "api:public_study_list", "anyone", "Published studies: summary, dataset, agreement."),
]


class ApiResourceOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.URLField()
    access = serializers.CharField(help_text="Who may read it: anyone, signed in, or study owners and staff.")
    description = serializers.CharField()


class ApiIndexOutputSerializer(serializers.Serializer):
    version = serializers.CharField()
    schema = serializers.URLField(help_text="The OpenAPI 3 schema (YAML; `?format=json` for JSON).")
    docs = serializers.URLField(help_text="Swagger UI.")
    resources = ApiResourceOutputSerializer(many=True)


class ApiIndexApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["index"],
        operation_id="api_index",
        summary="The API's resources with their addresses (no login needed)",
        responses=ApiIndexOutputSerializer,
    )
    def get(self, request: Request) -> Response:
        def absolute(name: str) -> str:
            return request.build_absolute_uri(reverse(name))

        body = {
            "version": "v1",
            "schema": absolute("schema"),
            "docs": absolute("swagger-ui"),
            "resources": [
                {"name": name, "url": absolute(url_name), "access": access, "description": description}
                for name, url_name, access, description in RESOURCES
            ],
        }
        return Response(ApiIndexOutputSerializer(body).data)
