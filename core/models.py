"""The shared kernel: the user model and base model classes."""

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
