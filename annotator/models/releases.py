"""Releases of a study: what was published, frozen, so that it can be read again unchanged at its address.

Publishing writes release n of a study: the taxonomy version it used, the public dataset (final labels with
each rater's revised and independent labels), the agreement report, the findings, README, citation, checksums
and the replication package, each as a ReleaseFile holding its bytes. Nothing here is ever updated or deleted (the
services only insert; on PostgreSQL a trigger refuses UPDATE and DELETE). Whether a release can be read is
the latest ReleaseVisibilityChange for it: unpublishing hides a release (404), publishing it again undoes that.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Release(models.Model):
    """Release ``number`` of a study: 1 at the first publication, n+1 each time the owner publishes again."""

    study = models.ForeignKey("annotator.Study", on_delete=models.PROTECT, related_name="releases")
    number = models.PositiveIntegerField()
    taxonomy_version = models.ForeignKey("taxonomy.TaxonomyVersion", on_delete=models.PROTECT, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    # What changed since the previous release; required from release 2 on.
    change_note = models.TextField(blank=True)
    # SHA-256 over the files whose content depends on the study's data (not on the moment of publication):
    # publishing again with the same content is refused.
    content_sha256 = models.CharField(max_length=64)
    # Small figures shown in lists without reading the files: {"issues": 849, "excluded": 12, ...}.
    figures = models.JSONField(default=dict)

    class Meta:
        ordering = ["study", "number"]
        constraints = [
            models.UniqueConstraint(fields=["study", "number"], name="release_number_unique_per_study"),
            models.CheckConstraint(condition=Q(number__gte=1), name="release_number_positive"),
            models.CheckConstraint(condition=Q(number=1) | ~Q(change_note=""), name="release_change_note_after_first"),
        ]

    def __str__(self) -> str:
        return f"release {self.number} of study {self.study_id}"


class ReleaseFile(models.Model):
    """One frozen file of a release: its bytes, as first served, with their SHA-256."""

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="files")
    name = models.CharField(max_length=100)
    content_type = models.CharField(max_length=100)
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["release", "name"]
        constraints = [
            models.UniqueConstraint(fields=["release", "name"], name="release_file_unique_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name} of release {self.release_id}"


class ReleaseVisibilityChange(models.Model):
    """One hide or show of a release (an unpublish, or publishing it again); the latest one for a release wins.

    A release with no change is visible. Unpublishing a whole study writes one row per release it hides.
    """

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="visibility_changes")
    visible = models.BooleanField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["release", "at", "id"]
        indexes = [models.Index(fields=["release", "-id"], name="release_visibility_latest")]

    def __str__(self) -> str:
        return f"release {self.release_id} {'shown' if self.visible else 'hidden'} at {self.at:%Y-%m-%d %H:%M}"
