"""The shared kernel: the user model and base model classes."""

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person using Taxonomist. Custom from the first migration so fields can be added later."""

    display_name = models.CharField(max_length=150, blank=True)

    def __str__(self) -> str:
        return self.display_name or self.get_full_name() or self.username


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class AuditEntry(models.Model):
    """An append-only record of one change: who, when, at which version, and the state before and after.

    Subclasses add the foreign key to what changed and an `action` field with their own choices.
    Only services write these; nothing updates or deletes them, and the database refuses an update of a
    subclass's rows (a trigger its app's migrations create; tests/annotator/test_append_only_tables.py).
    """

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField()
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True
