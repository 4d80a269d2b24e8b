"""Admin for studies and labels. Labels are read-only for everyone but superusers; history for everyone."""

from django.contrib import admin

from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    Resolution,
    ResolutionHistory,
    ResolutionValue,
    Study,
    StudyFrame,
    StudyIssue,
    StudyMember,
    StudyRound,
)


class ServiceWritesOnlyMixin:
    """Staff may look; labels change only through the services, which keep the audit history.

    Editing a label here would bypass optimistic locking and history, so nobody may, superusers
    included: resolve in the Disagreements admin or on the adjudication page instead.
    """

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AppendOnlyMixin:
    """Audit history is written by the services only: nobody adds, edits or deletes it here."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class StudyMemberInline(ServiceWritesOnlyMixin, admin.TabularInline):
    model = StudyMember
    extra = 0


@admin.register(Study)
class StudyAdmin(ServiceWritesOnlyMixin, admin.ModelAdmin):
    """Read-only: a study's version, phase, dimensions and members change through the study pages' services,
    which carry labels across a version move, keep the pilot gate and check what publishing needs."""

    list_display = ["name", "taxonomy_version", "phase", "raters_per_issue", "blind", "created_at"]
    list_filter = ["phase", "blind"]
    search_fields = ["name", "slug"]
    inlines = [StudyMemberInline]


@admin.register(StudyFrame)
class StudyFrameAdmin(AppendOnlyMixin, admin.ModelAdmin):
    """A study's sample frames, as recorded: a new frame is a new row, written by the study services."""

    list_display = ["study", "number", "kind", "added", "created_by", "created_at"]
    list_filter = ["kind", "added"]
    list_select_related = ["study", "created_by"]


@admin.register(StudyRound)
class StudyRoundAdmin(ServiceWritesOnlyMixin, admin.ModelAdmin):
    list_display = ["study", "number", "kind", "size", "drawn", "double_coded", "pool_size", "seed", "created_at"]
    list_filter = ["kind"]
    readonly_fields = ["filters", "stratification", "seed", "size", "pool_size", "drawn", "created_by", "created_at"]


@admin.register(StudyIssue)
class StudyIssueAdmin(ServiceWritesOnlyMixin, admin.ModelAdmin):
    list_display = ["study", "position", "issue", "round", "double_coded"]
    list_select_related = ["study", "issue__repository", "round__study"]
    raw_id_fields = ["issue", "round"]
    search_fields = ["issue__title"]


@admin.register(Assignment)
class AssignmentAdmin(ServiceWritesOnlyMixin, admin.ModelAdmin):
    list_display = ["study_issue", "rater", "status", "assigned_at", "submitted_at"]
    list_filter = ["status"]
    list_select_related = ["study_issue__study", "study_issue__issue__repository", "rater"]
    raw_id_fields = ["study_issue"]
    readonly_fields = ["assigned_at", "started_at", "submitted_at"]


class AnnotationValueInline(ServiceWritesOnlyMixin, admin.TabularInline):
    model = AnnotationValue
    extra = 0
    raw_id_fields = ["category"]


@admin.register(Annotation)
class AnnotationAdmin(ServiceWritesOnlyMixin, admin.ModelAdmin):
    list_display = ["pk", "assignment", "excluded", "confidence", "version", "submitted_at", "frozen"]
    list_filter = ["frozen", "excluded"]
    list_select_related = ["assignment__study_issue__study", "assignment__rater", "assignment__study_issue__issue"]
    raw_id_fields = ["assignment"]
    inlines = [AnnotationValueInline]


@admin.register(AnnotationHistory)
class AnnotationHistoryAdmin(AppendOnlyMixin, admin.ModelAdmin):
    list_display = ["annotation", "action", "actor", "version", "at"]
    list_filter = ["action"]


class ResolutionValueInline(ServiceWritesOnlyMixin, admin.TabularInline):
    """The final labels, shown read-only (a category, or the rater's proposal the adjudicator settled on)."""

    model = ResolutionValue
    fields = ["dimension", "category", "proposal", "proposal_annotation"]
    readonly_fields = fields
    extra = 0


@admin.register(Resolution)
class ResolutionAdmin(ServiceWritesOnlyMixin, admin.ModelAdmin):
    list_display = ["study_issue", "method", "decided_by", "decided_at", "version"]
    list_filter = ["method"]
    raw_id_fields = ["study_issue"]
    inlines = [ResolutionValueInline]


@admin.register(ResolutionHistory)
class ResolutionHistoryAdmin(AppendOnlyMixin, admin.ModelAdmin):
    list_display = ["resolution", "action", "actor", "version", "at"]


# Imported last: they register further admins and import the mixins above.
from annotator import admin_disagreements, admin_releases  # noqa: E402, F401
