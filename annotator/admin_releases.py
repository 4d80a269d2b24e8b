"""Releases in the admin: read-only for everyone, superusers included (a release is never changed or deleted;
publishing, unpublishing and publishing again go through the study's page or the API)."""

from django.contrib import admin

from annotator.admin import AppendOnlyMixin as ReadOnlyMixin
from annotator.models import Release, ReleaseFile, ReleaseVisibilityChange


class ReleaseFileInline(ReadOnlyMixin, admin.TabularInline):
    model = ReleaseFile
    fields = ["name", "content_type", "size", "sha256"]
    readonly_fields = fields
    extra = 0


class ReleaseVisibilityChangeInline(ReadOnlyMixin, admin.TabularInline):
    model = ReleaseVisibilityChange
    fields = ["visible", "actor", "at", "reason"]
    readonly_fields = fields
    extra = 0


@admin.register(Release)
class ReleaseAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["study", "number", "taxonomy_version", "created_at", "created_by"]
    list_filter = ["created_at"]
    exclude = ["figures"]
    inlines = [ReleaseFileInline, ReleaseVisibilityChangeInline]
