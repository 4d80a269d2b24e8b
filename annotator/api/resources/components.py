"""A repository's component rules: read them (every signed-in user) and replace them in one request
(study owners, taxonomy maintainers and staff)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.pagination import BoundedLimitOffsetPagination
from annotator.fixes.components import MAX_COMPONENT_LENGTH, MAX_PATTERN_LENGTH, MAX_RULES
from annotator.models import ComponentRule, Repository
from annotator.selectors.components import component_rules_of
from annotator.services.components import component_rules_replace
from core.errors import PermissionDeniedError
from core.permissions import can_edit_components

TAGS = ["components"]


class ComponentRuleOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ComponentRule
        fields = ["id", "pattern", "component", "position"]


# What the API takes is a plain subset of what the Components page takes, so the schema can say it exactly:
# folders of path characters (no spaces, control characters, backslashes or [character sets]), none of them
# . or .., joined by /. Explicit ranges, not \s: a client's regex engine (ECMAScript's, in the schema) and
# Python's disagree on which characters \s covers (U+0085, U+FEFF).
_NOT_PATH = r"/ \x00-\x1f\x7f-\x9f\\\[\]"
_FREE = rf"[^{_NOT_PATH}]"
_SEGMENT = rf"(?:[^.{_NOT_PATH}]{_FREE}*|\.[^.{_NOT_PATH}]{_FREE}*|\.\.{_FREE}+)"
PATTERN_REGEX = rf"^{_SEGMENT}(?:/{_SEGMENT})*/?$"
# A name with a visible character and no control characters.
_CONTROL = r"\x00-\x1f\x7f-\x9f"
_BLANK = r" \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
COMPONENT_REGEX = rf"^[^{_CONTROL}]*[^{_CONTROL}{_BLANK}][^{_CONTROL}]*$"


class ComponentRuleInputSerializer(serializers.Serializer):
    pattern = serializers.RegexField(PATTERN_REGEX, max_length=MAX_PATTERN_LENGTH, trim_whitespace=False)
    component = serializers.RegexField(COMPONENT_REGEX, max_length=MAX_COMPONENT_LENGTH, trim_whitespace=False)


class ComponentRulesReplaceInputSerializer(serializers.Serializer):
    rules = ComponentRuleInputSerializer(many=True, max_length=MAX_RULES, allow_empty=True)


class ComponentRulesOutputSerializer(serializers.Serializer):
    repository = serializers.IntegerField()
    rules = ComponentRuleOutputSerializer(many=True)


class RepositoryComponentsApi(generics.GenericAPIView):
    permission_classes = [IsAuthenticated]
    pagination_class = BoundedLimitOffsetPagination
    filter_backends: list = []
    serializer_class = ComponentRuleOutputSerializer

    @extend_schema(
        tags=TAGS,
        operation_id="repository_components_list",
        summary="A repository's component rules in order (the first pattern that covers a path names its component)",
        responses={
            200: ComponentRuleOutputSerializer(many=True),
            404: OpenApiResponse(description="No such repository."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        rules = component_rules_of(repository=get_object_or_404(Repository, pk=pk))
        page = self.paginator.paginate_queryset(rules, request, view=self)
        return self.paginator.get_paginated_response(ComponentRuleOutputSerializer(page, many=True).data)

    @extend_schema(
        tags=TAGS,
        operation_id="repository_components_replace",
        summary="Replace a repository's component rules with the list given, in its order (answers all of them)",
        request=ComponentRulesReplaceInputSerializer,
        responses={
            200: ComponentRulesOutputSerializer,
            400: OpenApiResponse(description="A pattern or name cannot be stored (the message says which rule)."),
            403: OpenApiResponse(description="Not a study owner, taxonomy maintainer or staff."),
            404: OpenApiResponse(description="No such repository."),
            409: OpenApiResponse(description="Two rules have the same pattern."),
        },
    )
    def put(self, request: Request, pk: int) -> Response:
        if not can_edit_components(request.user):
            raise PermissionDeniedError("Only study owners and taxonomy maintainers keep component rules.")
        repository = get_object_or_404(Repository, pk=pk)
        data = ComponentRulesReplaceInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rules = component_rules_replace(repository=repository, rules=data.validated_data["rules"])
        return Response({"repository": repository.pk, "rules": ComponentRuleOutputSerializer(rules, many=True).data})
