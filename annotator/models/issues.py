"""Repositories, issues, their comments and the pull requests / commits that fixed them."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from core.models import TimeStampedModel


class Repository(TimeStampedModel):
    """A code host repository (or a pseudo-repository such as a Q&A site)."""

    host = models.CharField(max_length=200, default="github.com")
    owner = models.CharField(max_length=200)
    name = models.CharField(max_length=200)
    display_name = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    # Incremental sync state (last sync time, ETags / Last-Modified per listing).
    last_synced_at = models.DateTimeField(null=True, blank=True)
    sync_state = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["owner", "name"]
        verbose_name_plural = "repositories"
        constraints = [
            # GitHub names are case-insensitive: DeepSpeed and deepspeed are one repository.
            models.UniqueConstraint(Lower("host"), Lower("owner"), Lower("name"), name="repository_unique_ci"),
        ]

    def __str__(self) -> str:
        return self.display_name or self.full_name

    @property
    def full_name(self) -> str:
        return self.full_name_of(self.owner, self.name)

    @staticmethod
    def full_name_of(owner: str, name: str) -> str:
        """owner/name, or the name alone for a repository without an owner (rows that read the two columns)."""
        return f"{owner}/{name}" if owner else name

    @property
    def html_url(self) -> str:
        return f"https://{self.host}/{self.full_name}"


class RepositoryAlias(models.Model):
    """An old name of a repository (e.g. microsoft/DeepSpeed -> deepspeedai/DeepSpeed)."""

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="aliases")
    host = models.CharField(max_length=200, default="github.com")
    owner = models.CharField(max_length=200)
    name = models.CharField(max_length=200)

    class Meta:
        verbose_name_plural = "repository aliases"
        constraints = [
            models.UniqueConstraint(Lower("host"), Lower("owner"), Lower("name"), name="repository_alias_unique_ci"),
        ]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name} → {self.repository.full_name}"


class Issue(TimeStampedModel):
    class Kind(models.TextChoices):
        ISSUE = "issue", "Issue"
        PULL = "pull", "Pull request"
        POST = "post", "Post"

    class State(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"
        UNKNOWN = "", "Unknown"

    repository = models.ForeignKey(Repository, on_delete=models.PROTECT, related_name="issues", null=True, blank=True)
    number = models.PositiveIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.ISSUE)
    url = models.URLField(max_length=500, unique=True)
    title = models.CharField(max_length=1000)
    body = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.UNKNOWN, blank=True)
    state_reason = models.CharField(max_length=30, blank=True)
    author = models.CharField(max_length=200, blank=True)
    labels = models.JSONField(default=list, blank=True)
    created = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(null=True, blank=True)
    closed = models.DateTimeField(null=True, blank=True)
    comment_count = models.PositiveIntegerField(default=0)
    raw = models.JSONField(default=dict, blank=True)
    # Hash of the imported content: a re-import compares hashes instead of every field.
    content_hash = models.CharField(max_length=64, blank=True)
    # Shipped with `make run` to try the tool: never in a sample frame unless chosen one by one.
    demo = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "kind", "number"],
                condition=Q(repository__isnull=False, number__isnull=False),
                name="issue_number_unique_per_repository",
            ),
        ]
        indexes = [
            models.Index(fields=["repository", "-created", "-id"], name="issue_repo_created_idx"),
            models.Index(fields=["-created", "-id"], name="issue_created_idx"),
            models.Index(fields=["state"], name="issue_state_idx"),
        ]

    def __str__(self) -> str:
        prefix = f"{self.repository.full_name}#{self.number}" if self.repository_id and self.number else self.url
        return f"{prefix}: {self.title}"


class Comment(models.Model):
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="comments")
    # The host's comment id when known, else "pos:<n>" for comments embedded without ids.
    key = models.CharField(max_length=64)
    author = models.CharField(max_length=200, blank=True)
    body = models.TextField(blank=True)
    created = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(null=True, blank=True)
    url = models.URLField(max_length=500, blank=True)
    raw = models.JSONField(default=dict, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["issue", "created", "id"]
        constraints = [models.UniqueConstraint(fields=["issue", "key"], name="comment_key_unique_per_issue")]

    def __str__(self) -> str:
        return f"comment {self.key} on {self.issue_id}"


class IssueLink(models.Model):
    """A pull request or commit connected to an issue (e.g. the fix)."""

    class Kind(models.TextChoices):
        PULL = "pull", "Pull request"
        COMMIT = "commit", "Commit"

    class Relation(models.TextChoices):
        CLOSED_BY = "closed_by", "Closed by"
        CROSS_REFERENCED = "cross_referenced", "Cross-referenced"
        REFERENCED = "referenced", "Referenced"
        MANUAL = "manual", "Added by hand"

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="links")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    relation = models.CharField(max_length=20, choices=Relation.choices)
    url = models.URLField(max_length=500)
    number = models.PositiveIntegerField(null=True, blank=True)
    sha = models.CharField(max_length=64, blank=True)
    title = models.CharField(max_length=1000, blank=True)
    merged = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["issue", "kind", "number", "sha"]
        constraints = [models.UniqueConstraint(fields=["issue", "url"], name="issue_link_unique")]

    def __str__(self) -> str:
        return f"{self.get_relation_display()}: {self.url}"
