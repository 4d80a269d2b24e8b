"""GET /api/v1/me/annotations/: my own annotations across every study (never anyone else's)."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.filters import MyAnnotationFilterSet
from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.api.resources.selectors import annotations_of_user
from annotator.api.serializers import AnnotationOutputSerializer
from annotator.models import Annotation


class MyAnnotationsApi(generics.ListAPIView):
    serializer_class = AnnotationOutputSerializer
    pagination_class = BoundedLimitOffsetPagination
    filterset_class = MyAnnotationFilterSet

    @extend_schema(
        tags=["labelling"],
        operation_id="me_annotations_list",
        summary="My annotations in every study, most recently changed first (paginated with limit/offset)",
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Annotation.objects.none()
        return annotations_of_user(user=self.request.user)
