"""Serializers of the rater-flow API: separate input and output shapes, each with a unique name."""

from datetime import UTC, timedelta
from typing import Any

from django.urls import reverse
from django.utils import timezone
from rest_framework import serializers

from annotator.models import Annotation, Assignment
from annotator.selectors.labelling import annotation_values
from annotator.services.annotations import AnnotationInput

URL_PLACEHOLDER = 987654321  # stands for the assignment id in a reversed URL
ZERO = timedelta(0)


class RaterIssueOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    url = serializers.URLField()
    number = serializers.IntegerField(allow_null=True)
    state = serializers.CharField()
    repository = serializers.SerializerMethodField()

    def get_repository(self, issue) -> str | None:
        return issue.repository.full_name if issue.repository_id else None


class RaterAssignmentOutputSerializer(serializers.ModelSerializer):
    study = serializers.IntegerField(source="study_issue.study_id")
    position = serializers.IntegerField(source="study_issue.position")
    round = serializers.IntegerField(source="study_issue.round.number")
    annotation = serializers.IntegerField(source="annotation.pk")
    annotation_version = serializers.IntegerField(source="annotation.version")
    issue = RaterIssueOutputSerializer(source="study_issue.issue")
    page_url = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "study",
            "position",
            "round",
            "status",
            "skip_reason",
            "assigned_at",
            "started_at",
            "submitted_at",
            "annotation",
            "annotation_version",
            "issue",
            "page_url",
        ]

    def get_page_url(self, assignment) -> str:
        return reverse("annotator:label", args=[assignment.study_issue.study_id, assignment.pk])


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


def _datetime_renderer():
    """A function rendering datetimes as DRF's DateTimeField does (ISO 8601, "Z" for UTC, current time zone)."""
    zone = timezone.get_current_timezone()  # once per response: DRF's DateTimeField looks it up for every value
    in_utc = zone.utcoffset(None) == ZERO and str(zone) == "UTC"

    def when(value):
        if value is None:
            return None
        if not (in_utc and value.tzinfo is UTC):  # converting UTC to UTC costs more than the rest
            value = value.astimezone(zone)
        text = value.isoformat()
        return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text

    return when


def assignment_rows_data(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What RaterAssignmentOutputSerializer gives for each row of `assignment_page_for_rater`, built directly.

    A page of 100 through nested serializers costs more than everything else in the request; the
    shape is the same (a test compares the two).
    """
    when = _datetime_renderer()
    urls: dict[int, tuple[str, str]] = {}
    data = []
    for row in rows:
        study = row["study"]
        if study not in urls:  # one reverse() per page, not per row
            sample = reverse("annotator:label", args=[study, URL_PLACEHOLDER])
            urls[study] = tuple(sample.split(str(URL_PLACEHOLDER), 1))
        prefix, suffix = urls[study]
        owner, name = row["repository_owner"], row["repository_name"]
        data.append(
            {
                "id": row["id"],
                "study": study,
                "position": row["position"],
                "round": row["round"],
                "status": row["status"],
                "skip_reason": row["skip_reason"],
                "assigned_at": when(row["assigned_at"]),
                "started_at": when(row["started_at"]),
                "submitted_at": when(row["submitted_at"]),
                "annotation": row["annotation"],
                "annotation_version": row["annotation_version"],
                "issue": {
                    "id": row["issue_id"],
                    "title": row["issue_title"],
                    "url": row["issue_url"],
                    "number": row["issue_number"],
                    "state": row["issue_state"],
                    "repository": None if name is None else (f"{owner}/{name}" if owner else name),
                },
                "page_url": f"{prefix}{row['id']}{suffix}",
            }
        )
    return data


class RaterProgressOutputSerializer(serializers.Serializer):
    round = serializers.IntegerField(source="study_issue__round__number")
    done = serializers.IntegerField()
    skipped = serializers.IntegerField()
    total = serializers.IntegerField()


class RaterNextAssignmentOutputSerializer(serializers.Serializer):
    assignment = RaterAssignmentOutputSerializer(allow_null=True)
    progress = RaterProgressOutputSerializer(allow_null=True)


class AnnotationOutputSerializer(serializers.ModelSerializer):
    assignment = serializers.IntegerField(source="assignment_id")
    study = serializers.IntegerField(source="assignment.study_issue.study_id")
    issue = serializers.IntegerField(source="assignment.study_issue.issue_id")
    rater = serializers.CharField(source="assignment.rater.username")
    status = serializers.CharField(source="assignment.status")
    values = serializers.SerializerMethodField()

    class Meta:
        model = Annotation
        fields = [
            "id",
            "assignment",
            "study",
            "issue",
            "rater",
            "status",
            "values",
            "note",
            "excluded",
            "excluded_reason",
            "excluded_text",
            "confidence",
            "proposals",
            "time_spent_seconds",
            "version",
            "submitted_at",
            "frozen",
            "updated_at",
        ]

    def get_values(self, annotation) -> dict[str, list[int]]:
        # A service that has just written the labels hands them over: no need to read them back.
        current = getattr(annotation, "current_values", None)
        return current if current is not None else annotation_values(annotation)


def annotation_output(annotation: Annotation) -> dict[str, Any]:
    """What AnnotationOutputSerializer gives for an annotation a service has just saved, built directly.

    The autosave answers with this on every save; the serializer's field machinery costs more than the
    rest of the response. Same shape (a test compares the two); needs `current_values` set by the service.
    """
    when = _datetime_renderer()
    assignment = annotation.assignment
    return {
        "id": annotation.pk,
        "assignment": annotation.assignment_id,
        "study": assignment.study_issue.study_id,
        "issue": assignment.study_issue.issue_id,
        "rater": assignment.rater.username,
        "status": assignment.status,
        "values": annotation.current_values,
        "note": annotation.note,
        "excluded": annotation.excluded,
        "excluded_reason": annotation.excluded_reason,
        "excluded_text": annotation.excluded_text,
        "confidence": annotation.confidence,
        "proposals": annotation.proposals,
        "time_spent_seconds": annotation.time_spent_seconds,
        "version": annotation.version,
        "submitted_at": when(annotation.submitted_at),
        "frozen": annotation.frozen,
        "updated_at": when(annotation.updated_at),
    }


class AnnotationDraftInputSerializer(serializers.Serializer):
    values = serializers.DictField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=1), max_length=50),
        required=False,
        default=dict,
        help_text='Category ids per dimension key, e.g. {"symptom": [12]}.',
    )
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=20000)
    excluded = serializers.BooleanField(required=False, default=False)
    excluded_reason = serializers.ChoiceField(
        choices=Annotation.ExcludedReason.choices, required=False, allow_blank=True, default=""
    )
    excluded_text = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)
    confidence = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=3, default=None)
    proposals = serializers.DictField(
        child=serializers.CharField(allow_blank=True, max_length=500),
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
