"""Taxonomies, their versions, dimensions and category trees.

A published version is immutable; categories keep a lineage id across versions so labels
made under one version can be carried to the next.
"""

import uuid

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
