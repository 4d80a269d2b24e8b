"""The owner's publication API: publish the next release, unpublish releases, publish them again.

Each takes ``"dry_run": true`` (or ``?dry_run=1``): the answer then says what would happen, with counts, and
nothing is written; a call the service would refuse answers the same error with or without ``dry_run``.
"""

from django.urls import path, reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.models import Release, Study
from annotator.permissions import can_manage_study
from annotator.selectors.releases import releases_with_visibility
from annotator.selectors.studies import study_get_for_user
from annotator.services.publication import (
    CHANGE_NOTE_MAX,
    study_publish,
    study_publish_preview,
    study_republish,
    study_republish_preview,
    study_unpublish,
    study_unpublish_preview,
)
from core.errors import PermissionDeniedError
from core.pagination import BoundedLimitOffsetPagination

TAGS = ["publication"]
ERRORS = {
    400: OpenApiResponse(description="Invalid input, issues still open, or no change note for release 2 and later."),
    403: OpenApiResponse(description="Not an owner of the study."),
    404: OpenApiResponse(description="No such study, or not visible to you."),
    409: OpenApiResponse(description="Nothing changed since the last release, or nothing to hide or show."),
}


def _dry_run(request: Request, data: dict) -> bool:
    flag = str(request.query_params.get("dry_run", "")).lower() in {"1", "true", "yes"}
    return flag or bool(data.get("dry_run"))


class PublishInputSerializer(serializers.Serializer):
    change_note = serializers.CharField(
        required=False, allow_blank=True, max_length=CHANGE_NOTE_MAX, help_text="Required from release 2 on."
    )
    dry_run = serializers.BooleanField(required=False, default=False)


class ChangesOutputSerializer(serializers.Serializer):
    issues_added = serializers.IntegerField()
    issues_removed = serializers.IntegerField()
    final_labels_changed = serializers.IntegerField()
    rows_changed = serializers.IntegerField(help_text="Rows with any difference: final or raters' labels, notes.")
    findings_changed = serializers.BooleanField(
        help_text="The findings (fix size and time, components, flows, tests) differ from the previous release's: "
        "fix data imported again or component rules edited change them even when the dataset is the same."
    )


class PublishPreviewOutputSerializer(serializers.Serializer):
    release = serializers.IntegerField(help_text="The number the release gets (or got).")
    issues = serializers.IntegerField()
    excluded = serializers.IntegerField()
    open_issues = serializers.IntegerField()
    taxonomy_version = serializers.CharField()
    publishes_taxonomy_version = serializers.BooleanField(help_text="The draft version is published too.")
    previous_release = serializers.IntegerField(allow_null=True)
    previous_taxonomy_version = serializers.CharField(allow_null=True)
    changes = ChangesOutputSerializer(allow_null=True, help_text="Since the previous release; null for release 1.")
    change_note_required = serializers.BooleanField()
    allowed = serializers.BooleanField()
    refusal = serializers.CharField(allow_null=True)
    dry_run = serializers.BooleanField()


class PublishedOutputSerializer(serializers.Serializer):
    release = serializers.IntegerField(help_text="The number of the release just published.")
    published_at = serializers.DateTimeField()
    taxonomy_version = serializers.CharField()
    issues = serializers.IntegerField()
    excluded = serializers.IntegerField()
    citation = serializers.CharField()
    url = serializers.URLField(help_text="The release's public page.")
    api = serializers.URLField(help_text="The release's public API address.")
    dry_run = serializers.BooleanField()


class VisibilityInputSerializer(serializers.Serializer):
    releases = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**31 - 1),
        required=False,
        min_length=1,
        max_length=1000,
        help_text="Release numbers (at least one); all of them when left out.",
    )
    reason = serializers.CharField(required=False, allow_blank=True, max_length=CHANGE_NOTE_MAX)
    dry_run = serializers.BooleanField(required=False, default=False)


class VisibilityOutputSerializer(serializers.Serializer):
    releases = serializers.ListField(child=serializers.IntegerField(), help_text="The releases hidden (or shown).")
    visible_after = serializers.ListField(child=serializers.IntegerField())
    phase_before = serializers.CharField()
    phase_after = serializers.CharField()
    dry_run = serializers.BooleanField()


class OwnerReleaseOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    published_at = serializers.DateTimeField(source="created_at")
    visible = serializers.BooleanField(source="shown")
    change_note = serializers.CharField()
    taxonomy_version = serializers.SerializerMethodField()

    def get_taxonomy_version(self, release) -> str:
        return f"{release.taxonomy_version.taxonomy.slug} v{release.taxonomy_version.number}"


def _study(request: Request, pk: int) -> Study:
    return study_get_for_user(user=request.user, pk=pk)


class StudyPublishApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=TAGS,
        operation_id="study_publish",
        summary="Publish the study's next release (or, with dry_run, say what it would hold)",
        request=PublishInputSerializer,
        responses={200: PublishPreviewOutputSerializer, 201: PublishedOutputSerializer, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        data = PublishInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        study = _study(request, pk)
        if _dry_run(request, data.validated_data):
            note = data.validated_data.get("change_note", "")
            preview = study_publish_preview(study=study, actor=request.user, change_note=note)
            if preview.refusal is not None:
                raise preview.refusal
            return Response(PublishPreviewOutputSerializer(preview.as_dict() | {"dry_run": True}).data)
        release = study_publish(
            study=study,
            actor=request.user,
            change_note=data.validated_data.get("change_note", ""),
            base_url=request.build_absolute_uri("/"),
        )
        version = release.taxonomy_version
        body = {
            "release": release.number,
            "published_at": release.created_at,
            "taxonomy_version": f"{version.taxonomy.slug} v{version.number}",
            "issues": release.figures["issues"],
            "excluded": release.figures["excluded"],
            "citation": release.figures["citation"],
            "url": request.build_absolute_uri(
                reverse("annotator:public_release_page", args=[study.slug, release.number])
            ),
            "api": request.build_absolute_uri(reverse("api:public_release", args=[study.slug, release.number])),
            "dry_run": False,
        }
        return Response(PublishedOutputSerializer(body).data, status=201)


class _VisibilityApi(APIView):
    permission_classes = [IsAuthenticated]
    preview = staticmethod(study_unpublish_preview)
    write = staticmethod(study_unpublish)

    def post(self, request: Request, pk: int) -> Response:
        data = VisibilityInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        study = _study(request, pk)
        releases = data.validated_data.get("releases")
        if _dry_run(request, data.validated_data):
            result = self.preview(study=study, actor=request.user, releases=releases)
        else:
            reason = data.validated_data.get("reason", "")
            result = self.write(study=study, actor=request.user, releases=releases, reason=reason)
        body = result.as_dict() | {"dry_run": _dry_run(request, data.validated_data)}
        return Response(VisibilityOutputSerializer(body).data)


class StudyUnpublishApi(_VisibilityApi):
    @extend_schema(
        tags=TAGS,
        operation_id="study_unpublish",
        summary="Hide releases (all by default): their public addresses answer 404; nothing is deleted",
        request=VisibilityInputSerializer,
        responses={200: VisibilityOutputSerializer, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class StudyRepublishApi(_VisibilityApi):
    preview = staticmethod(study_republish_preview)
    write = staticmethod(study_republish)

    @extend_schema(
        tags=TAGS,
        operation_id="study_republish",
        summary="Show hidden releases again (all by default), unchanged: undoes an unpublish",
        request=VisibilityInputSerializer,
        responses={200: VisibilityOutputSerializer, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class StudyReleaseListApi(generics.GenericAPIView):
    permission_classes = [IsAuthenticated]
    serializer_class = OwnerReleaseOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []
    queryset = Release.objects.none()  # the schema reads the model from it; get() reads through the selectors

    @extend_schema(
        tags=TAGS,
        operation_id="study_release_list",
        summary="Every release of the study, hidden ones included (owners only), oldest first",
        responses={200: OwnerReleaseOutputSerializer(many=True), 403: ERRORS[403], 404: ERRORS[404]},
    )
    def get(self, request: Request, pk: int) -> Response:
        study = _study(request, pk)
        if not can_manage_study(request.user, study):
            raise PermissionDeniedError("Only the study's owner sees its hidden releases.")
        releases = releases_with_visibility(study=study).select_related("taxonomy_version__taxonomy")
        page = self.paginate_queryset(releases)
        return self.get_paginated_response(OwnerReleaseOutputSerializer(page, many=True).data)


urlpatterns = [
    path("studies/<id:pk>/publish/", StudyPublishApi.as_view(), name="study_publish"),
    path("studies/<id:pk>/unpublish/", StudyUnpublishApi.as_view(), name="study_unpublish"),
    path("studies/<id:pk>/republish/", StudyRepublishApi.as_view(), name="study_republish"),
    path("studies/<id:pk>/releases/", StudyReleaseListApi.as_view(), name="study_release_list"),
]
