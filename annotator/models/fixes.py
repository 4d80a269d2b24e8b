"""What measures a fix: the details of a linked pull request or commit, its files, and components.

An `IssueLink` says which pull request or commit fixed an issue; a `FixDetail` is what GitHub says of
that change (size, merge time, discussion), fetched by the GitHub import with fix details. Components
are not stored per fix: they come from the repository's `ComponentRule`s at read time, so editing the
mapping changes every fix's components at once.
"""

from django.db import models
from django.db.models import Q

from core.models import TimeStampedModel

from .issues import IssueLink, Repository


class FixDetail(TimeStampedModel):
    """GitHub's account of one linked pull request or commit."""

    link = models.OneToOneField(IssueLink, on_delete=models.CASCADE, related_name="fix_detail")
    # Pull requests only: merged or not, when it was opened and merged.
    merged = models.BooleanField(null=True, blank=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    merged_at = models.DateTimeField(null=True, blank=True)
    # Commits: when it was committed (the change's own date).
    committed_at = models.DateTimeField(null=True, blank=True)
    additions = models.PositiveIntegerField(default=0)
    deletions = models.PositiveIntegerField(default=0)
    changed_files = models.PositiveIntegerField(default=0)
    commits = models.PositiveIntegerField(null=True, blank=True)
    comments = models.PositiveIntegerField(null=True, blank=True)
    review_comments = models.PositiveIntegerField(null=True, blank=True)
    # False while some file pages are unread (GitHub lists at most 3,000 files of a pull request).
    files_complete = models.BooleanField(default=False)
    # Conditional requests on the next sync: the ETag of the change's own resource.
    etag = models.CharField(max_length=200, blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["link"]

    def __str__(self) -> str:
        return f"fix details of {self.link.url}"

    @property
    def lines_changed(self) -> int:
        return self.additions + self.deletions


class FixFile(models.Model):
    """One file a fixing change touched, with its own additions and deletions."""

    class Status(models.TextChoices):
        ADDED = "added", "Added"
        REMOVED = "removed", "Removed"
        MODIFIED = "modified", "Modified"
        RENAMED = "renamed", "Renamed"
        COPIED = "copied", "Copied"
        CHANGED = "changed", "Changed"
        UNCHANGED = "unchanged", "Unchanged"

    detail = models.ForeignKey(FixDetail, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=1000)
    previous_path = models.CharField(max_length=1000, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.MODIFIED)
    additions = models.PositiveIntegerField(default=0)
    deletions = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["detail", "path"]
        constraints = [models.UniqueConstraint(fields=["detail", "path"], name="fix_file_unique_path")]

    def __str__(self) -> str:
        return self.path


class ComponentRule(TimeStampedModel):
    """A path pattern of one repository and the component its files belong to; the first match wins."""

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="component_rules")
    # A glob on the path from the repository root: `*` within a folder, `**` across folders.
    pattern = models.CharField(max_length=500)
    component = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["repository", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "pattern"], name="component_rule_unique_pattern"),
            models.CheckConstraint(condition=~Q(pattern=""), name="component_rule_pattern_not_empty"),
            models.CheckConstraint(condition=~Q(component=""), name="component_rule_component_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.pattern} → {self.component}"
