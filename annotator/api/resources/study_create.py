"""Creating a study through the API, with its sample frame (the same service as the study form)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.resources.serializers import StudyOutputSerializer
from annotator.models import Issue, Study, StudyFrame
from annotator.selectors.issues import IssueFilters
from annotator.selectors.studies import active_users_by_username
from annotator.services.frames import MAX_EXPLICIT_ISSUES, FrameSpec
from annotator.services.studies import study_create
from core.errors import PermissionDeniedError
from core.permissions import can_manage_imports
from taxonomy.selectors import version_by_id, version_dimensions_by_key

MAX_MEMBERS = 100
ID = {"min_value": 1, "max_value": 2**63 - 1}
# Text that is not only blank (and, like every text of the API, holds no NUL): a name, a username, a key.
NOT_BLANK = r"^[^\x00]*[^\s\x00][^\x00]*$"


class FrameSearchInputSerializer(serializers.Serializer):
    q = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="Words or phrases.")
    label = serializers.CharField(required=False, allow_blank=True, max_length=200)
    state = serializers.ChoiceField(choices=["", Issue.State.OPEN, Issue.State.CLOSED], required=False)
    kind = serializers.ChoiceField(choices=["", *Issue.Kind.values], required=False)
    repository = serializers.IntegerField(required=False, allow_null=True, **ID)
    created_from = serializers.DateField(required=False, allow_null=True)
    created_to = serializers.DateField(required=False, allow_null=True)
    import_job = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Only the issues this import job (a file or GitHub import you may see) wrote or found unchanged.",
        **ID,
    )


class FrameInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=StudyFrame.Kind.values, help_text="What defines the frame.")
    import_job = serializers.IntegerField(
        required=False, allow_null=True, help_text="For import_batch: a finished file or GitHub import.", **ID
    )
    repositories = serializers.ListField(
        child=serializers.IntegerField(**ID), required=False, max_length=1000, help_text="For repositories."
    )
    search = FrameSearchInputSerializer(required=False, help_text="For search: the saved issue search.")
    issues = serializers.ListField(
        child=serializers.IntegerField(**ID),
        required=False,
        max_length=MAX_EXPLICIT_ISSUES,
        help_text="For explicit: issue ids (demo issues enter a frame only this way).",
    )


class StudyCreateInputSerializer(serializers.Serializer):
    name = serializers.RegexField(NOT_BLANK, max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    taxonomy_version = serializers.IntegerField(help_text="Id of the taxonomy version to label with.", **ID)
    dimensions = serializers.ListField(
        child=serializers.RegexField(NOT_BLANK, max_length=50),
        required=False,
        max_length=100,
        help_text="Keys of the version's dimensions to label; none: all of them.",
    )
    raters = serializers.ListField(
        child=serializers.RegexField(NOT_BLANK, max_length=150), min_length=1, max_length=MAX_MEMBERS
    )
    adjudicators = serializers.ListField(
        child=serializers.RegexField(NOT_BLANK, max_length=150), required=False, max_length=MAX_MEMBERS
    )
    raters_per_issue = serializers.IntegerField(required=False, min_value=1, max_value=10, default=2)
    assignment_mode = serializers.ChoiceField(choices=Study.AssignmentMode.values, required=False)
    blind = serializers.BooleanField(required=False, default=True)
    guidelines = serializers.CharField(required=False, allow_blank=True, max_length=100_000)
    pilot_size = serializers.IntegerField(required=False, min_value=0, max_value=100_000, default=0)
    agreement_threshold = serializers.FloatField(
        required=False, min_value=0, max_value=1, help_text="Kappa (or alpha) the pilot must reach, 0 to 1."
    )
    frame = FrameInputSerializer(required=False, help_text="The sample frame; default: every non-demo issue.")


class StudyFrameOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField()
    definition = serializers.DictField(help_text="What defines the frame, as recorded (with names for the paper).")


class StudyCreatedOutputSerializer(StudyOutputSerializer):
    frame = serializers.SerializerMethodField()

    class Meta(StudyOutputSerializer.Meta):
        fields = [*StudyOutputSerializer.Meta.fields, "frame"]

    @staticmethod
    def _frame(study: Study) -> StudyFrame:
        return study.frames.order_by("-number").first()

    @extend_schema_field(StudyFrameOutputSerializer)
    def get_frame(self, study: Study) -> dict:
        return StudyFrameOutputSerializer(self._frame(study)).data


def _frame(data: dict | None) -> FrameSpec | None:
    if not data:
        return None
    search = data.get("search")
    return FrameSpec(
        kind=data["kind"],
        import_job_id=data.get("import_job"),
        repository_ids=tuple(data.get("repositories") or ()),
        search=IssueFilters(
            q=(search.get("q") or "").strip(),
            label=(search.get("label") or "").strip(),
            state=search.get("state") or "",
            kind=search.get("kind") or "",
            repository=search.get("repository"),
            created_from=search.get("created_from"),
            created_to=search.get("created_to"),
            import_job=search.get("import_job"),
        )
        if search
        else None,
        issue_ids=tuple(data.get("issues") or ()),
    )


def study_create_from_api(*, request: Request) -> Study:
    data = StudyCreateInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    values = dict(data.validated_data)
    if not can_manage_imports(request.user):
        raise PermissionDeniedError("Only study owners and staff can create studies.")
    # A taken name is the service's 409 (ConflictError), checked with the rest of the study's set-up.
    name = values.pop("name")
    version = version_by_id(pk=values.pop("taxonomy_version"))
    options = {key: values[key] for key in values if key not in {"dimensions", "raters", "adjudicators", "frame"}}
    return study_create(
        name=name,
        taxonomy_version=version,
        dimensions=version_dimensions_by_key(version=version, keys=values.get("dimensions") or []),
        raters=active_users_by_username(usernames=values["raters"]),
        adjudicators=active_users_by_username(usernames=values.get("adjudicators") or []),
        created_by=request.user,
        frame=_frame(values.get("frame")),
        **options,
    )


CREATE_SCHEMA = extend_schema(
    operation_id="studies_create",
    summary="Create a study with its sample frame (study owners and staff); the caller becomes its owner",
    request=StudyCreateInputSerializer,
    responses={
        201: StudyCreatedOutputSerializer,
        400: OpenApiResponse(description="Invalid input, or a rule of the study's set-up is broken."),
        403: OpenApiResponse(description="Only study owners and staff create studies."),
        404: OpenApiResponse(description="No such taxonomy version, dimension or account."),
        409: OpenApiResponse(description="A study of this name exists already."),
    },
)
CREATED = status.HTTP_201_CREATED


def created_response(request: Request, study: Study, context: dict) -> Response:
    return Response(StudyCreatedOutputSerializer(study, context=context).data, status=CREATED)
