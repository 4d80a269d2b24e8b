"""Serializers of the rater-flow API: separate input and output shapes, each with a unique name."""

from django.urls import reverse
from django.utils import timezone
from rest_framework import serializers

from annotator.models import Annotation, Assignment, Repository
from annotator.selectors.labelling import annotation_values
from annotator.selectors.pseudonyms import rater_as_seen
from annotator.services.annotations import (
    EXCLUDED_TEXT_MAX_CHARS,
    NOTE_MAX_CHARS,
    PROPOSAL_MAX_CHARS,
    AnnotationInput,
)

# The site's zone (settings.TIME_ZONE; nothing activates another): named once so that a row's dates do not look the
# current zone up each, as DRF does by default.
SERVER_TIMEZONE = timezone.get_default_timezone()


class RaterIssueOutputSerializer(serializers.Serializer):
    """The issue of a row of "my assignments", from the row's own columns (annotator.selectors.labelling)."""

    id = serializers.IntegerField(source="issue_pk")
    title = serializers.CharField(source="issue_title")
    url = serializers.URLField(source="issue_url")
    number = serializers.IntegerField(source="issue_number", allow_null=True)
    state = serializers.CharField(source="issue_state")
    repository = serializers.SerializerMethodField()

    def get_repository(self, row) -> str | None:
        if row.repository_name is None:
            return None
        return Repository.full_name_of(row.repository_owner, row.repository_name)


class RaterAssignmentOutputSerializer(serializers.Serializer):
    # A plain Serializer, not a ModelSerializer: the fields are declared once here instead of being rebuilt from
    # the model for every instance (a page of 100 rows builds the field set once either way, one row per request
    # on `next` pays it every time).
    id = serializers.IntegerField()
    study = serializers.IntegerField(source="study_id")  # the assignment's own copies, which the queue reads
    position = serializers.IntegerField()
    round = serializers.IntegerField(source="round_number")
    status = serializers.ChoiceField(choices=Assignment.Status.choices)
    skip_reason = serializers.CharField()
    assigned_at = serializers.DateTimeField(default_timezone=SERVER_TIMEZONE)
    started_at = serializers.DateTimeField(allow_null=True, default_timezone=SERVER_TIMEZONE)
    submitted_at = serializers.DateTimeField(allow_null=True, default_timezone=SERVER_TIMEZONE)
    annotation = serializers.IntegerField(source="annotation_pk")
    annotation_version = serializers.IntegerField()
    issue = RaterIssueOutputSerializer(source="*")
    page_url = serializers.SerializerMethodField()

    def get_page_url(self, assignment) -> str:
        # A page of rows shares one serializer: reverse() runs once per study, not once per row, since every
        # row's address is the study's labelling address ending in its own assignment id.
        prefixes = self.__dict__.setdefault("_label_prefixes", {})
        prefix = prefixes.get(assignment.study_id)
        if prefix is None:
            probe = reverse("annotator:label", args=[assignment.study_id, 1])
            prefix = prefixes[assignment.study_id] = probe.removesuffix("1/")
        return f"{prefix}{assignment.pk}/"


class RaterAssignmentPageInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=Assignment.Status.choices,
        required=False,
        allow_blank=True,
        help_text="Only assignments in this status.",
    )
    after = serializers.IntegerField(
        required=False, min_value=0, help_text="Queue position to continue after (from the `next` link)."
    )
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50, help_text="Page size.")

    def validate(self, attrs: dict) -> dict:
        if "offset" in self.initial_data:
            raise serializers.ValidationError(
                {"offset": ["This list pages by queue position: follow the `next` link (or pass `after`)."]}
            )
        return attrs


class RaterAssignmentPageOutputSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="All my assignments in the study (in this status, if filtered).")
    next = serializers.URLField(allow_null=True, help_text="The following page; null on the last one.")
    results = RaterAssignmentOutputSerializer(many=True)


class RaterProgressOutputSerializer(serializers.Serializer):
    round = serializers.IntegerField(source="study_issue__round__number")
    done = serializers.IntegerField()
    skipped = serializers.IntegerField()
    total = serializers.IntegerField()


class RaterNextAssignmentOutputSerializer(serializers.Serializer):
    assignment = RaterAssignmentOutputSerializer(allow_null=True)
    progress = RaterProgressOutputSerializer(allow_null=True)


class AnnotationOutputSerializer(serializers.Serializer):
    # Declared field by field (not a ModelSerializer) so that an autosave's answer does not rebuild the field
    # set from the model on every request.
    id = serializers.IntegerField()
    assignment = serializers.IntegerField(source="assignment_id")
    study = serializers.IntegerField(source="assignment.study_issue.study_id")
    issue = serializers.IntegerField(source="assignment.study_issue.issue_id")
    rater = serializers.SerializerMethodField(
        help_text="The rater's username; R1, R2 ... under anonymous adjudication for all but owners and the rater."
    )
    status = serializers.CharField(source="assignment.status")
    values = serializers.SerializerMethodField()
    note = serializers.CharField()
    excluded = serializers.BooleanField()
    excluded_reason = serializers.ChoiceField(choices=Annotation.ExcludedReason.choices, allow_blank=True)
    excluded_text = serializers.CharField()
    confidence = serializers.IntegerField(allow_null=True)
    proposals = serializers.DictField(child=serializers.CharField())
    time_spent_seconds = serializers.IntegerField()
    version = serializers.IntegerField()
    submitted_at = serializers.DateTimeField(allow_null=True, default_timezone=SERVER_TIMEZONE)
    frozen = serializers.BooleanField()
    updated_at = serializers.DateTimeField(default_timezone=SERVER_TIMEZONE)

    def get_rater(self, annotation) -> str:
        # Without a viewer in the context the caller is the rater (their own annotations only).
        return rater_as_seen(viewer=self.context.get("viewer"), assignment=annotation.assignment)

    def get_values(self, annotation) -> dict[str, list[int]]:
        # A service that has just written the labels hands them over: no need to read them back.
        current = getattr(annotation, "current_values", None)
        return current if current is not None else annotation_values(annotation)


class AnnotationDraftInputSerializer(serializers.Serializer):
    values = serializers.DictField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=1), max_length=50),
        required=False,
        default=dict,
        help_text='Category ids per dimension key, e.g. {"symptom": [12]}.',
    )
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=NOTE_MAX_CHARS)
    excluded = serializers.BooleanField(required=False, default=False)
    excluded_reason = serializers.ChoiceField(
        choices=Annotation.ExcludedReason.choices, required=False, allow_blank=True, default=""
    )
    excluded_text = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=EXCLUDED_TEXT_MAX_CHARS
    )
    confidence = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=3, default=None)
    proposals = serializers.DictField(
        child=serializers.CharField(allow_blank=True, max_length=PROPOSAL_MAX_CHARS),
        required=False,
        default=dict,
        help_text="Proposed new category per dimension key (open coding).",
    )
    elapsed_seconds = serializers.IntegerField(
        required=False, min_value=0, default=0, help_text="Active seconds since the last save; the server adds them."
    )
    version = serializers.IntegerField(min_value=1, help_text="The version the client last saw (optimistic locking).")

    def to_service_kwargs(self) -> dict:
        data = self.validated_data
        return {
            "data": AnnotationInput(
                values=data["values"],
                note=data["note"],
                excluded=data["excluded"],
                excluded_reason=data["excluded_reason"],
                excluded_text=data["excluded_text"],
                confidence=data["confidence"],
                proposals=data["proposals"],
            ),
            "expected_version": data["version"],
            "elapsed_seconds": data["elapsed_seconds"],
        }


class AnnotationSubmitInputSerializer(AnnotationDraftInputSerializer):
    """Same fields as a draft; the server also checks that every required dimension is answered."""
