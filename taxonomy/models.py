"""Taxonomies, their versions, dimensions and category trees.

A published version is immutable; categories keep a lineage id across versions so labels
made under one version can be carried to the next.
"""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.models import TimeStampedModel


class Taxonomy(TimeStampedModel):
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    citation = models.TextField(blank=True)
    license = models.CharField(max_length=100, blank=True)
    attribution = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "taxonomies"

    def __str__(self) -> str:
        return self.name


class TaxonomyVersion(TimeStampedModel):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    published_at = models.DateTimeField(null=True, blank=True)
    changelog = models.TextField(blank=True)
    based_on = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="successors")
    # The template a version was loaded from and its checksum: loading it again is a no-op.
    source = models.CharField(max_length=300, blank=True)
    source_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    # Optimistic locking of the browser editor: every edit operation bumps it under the row lock.
    edit_revision = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["taxonomy", "number"]
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "number"], name="taxonomy_version_number_unique"),
            models.CheckConstraint(
                condition=Q(status="draft") | Q(published_at__isnull=False), name="taxonomy_version_published_has_date"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.taxonomy.slug} v{self.number} ({self.status})"

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED


class Dimension(models.Model):
    version = models.ForeignKey(TaxonomyVersion, on_delete=models.CASCADE, related_name="dimensions")
    key = models.SlugField(max_length=60)
    name = models.CharField(max_length=120)
    help_text = models.TextField(blank=True)
    multi_valued = models.BooleanField(default=False)
    required = models.BooleanField(default=True)
    order = models.PositiveIntegerField(default=0)
    # Names of the tree levels, e.g. ["stage", "inner category", "leaf"], for per-level agreement.
    level_names = models.JSONField(default=list, blank=True)
    # Only meaningful when a condition holds, e.g. symptom only for issue type "fault".
    applies_when = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["version", "order", "key"]
        constraints = [models.UniqueConstraint(fields=["version", "key"], name="dimension_key_unique_per_version")]

    def __str__(self) -> str:
        return self.name


class Category(models.Model):
    dimension = models.ForeignKey(Dimension, on_delete=models.CASCADE, related_name="categories")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    code = models.CharField(max_length=120)
    name = models.CharField(max_length=200)
    definition = models.TextField(blank=True)
    examples = models.JSONField(default=list, blank=True)
    provenance = models.TextField(blank=True)
    distributed_specific = models.BooleanField(null=True, blank=True)
    # Other spellings seen in data (e.g. hand-typed spreadsheet labels) that mean this category.
    aliases = models.JSONField(default=list, blank=True)
    lineage_id = models.UUIDField(default=uuid.uuid4, db_index=True)
    deprecated = models.BooleanField(default=False)
    order = models.PositiveIntegerField(default=0)
    # Only leaves (or, where allowed, any node) can be chosen as labels.
    selectable = models.BooleanField(default=True)

    class Meta:
        ordering = ["dimension", "order", "name"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["dimension", "code"], name="category_code_unique_per_dimension"),
            models.CheckConstraint(condition=~Q(parent=models.F("id")), name="category_not_own_parent"),
        ]

    def __str__(self) -> str:
        return self.name


class CategoryLineage(models.Model):
    """One edge of a version's history: an old category becomes new ones (or none, or comes from none).

    Names and lineage ids are copied onto the edge so it stays readable even if a draft category
    it points to is removed later; labels are carried to a new version by following these edges.
    """

    class Operation(models.TextChoices):
        COPY = "copy", "Copied from the previous version"
        ADD = "add", "Added"
        RENAME = "rename", "Renamed"
        REDEFINE = "redefine", "Re-defined"
        MOVE = "move", "Moved"
        MERGE = "merge", "Merged"
        SPLIT = "split", "Split"
        DEPRECATE = "deprecate", "Deprecated"
        ALIAS = "alias", "Alias added"

    version = models.ForeignKey(TaxonomyVersion, on_delete=models.CASCADE, related_name="lineage")
    operation = models.CharField(max_length=10, choices=Operation.choices)
    # Edges made by one operation (the N edges of a merge) share a group id.
    group = models.UUIDField(default=uuid.uuid4, db_index=True)
    dimension_key = models.SlugField(max_length=60)
    from_category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="lineage_out"
    )
    to_category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="lineage_in"
    )
    from_lineage_id = models.UUIDField(null=True, blank=True, db_index=True)
    to_lineage_id = models.UUIDField(null=True, blank=True, db_index=True)
    from_name = models.CharField(max_length=200, blank=True)
    to_name = models.CharField(max_length=200, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["version", "at", "id"]
        verbose_name_plural = "category lineage"
        constraints = [
            models.CheckConstraint(
                condition=Q(from_lineage_id__isnull=False) | Q(to_lineage_id__isnull=False),
                name="category_lineage_has_an_end",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operation}: {self.from_name or '-'} -> {self.to_name or '-'} (v{self.version_id})"
