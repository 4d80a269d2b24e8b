"""The labels version of a study: what the cached agreement report is keyed by."""

from django.db import models

from .studies import Study


class StudyLabelsVersion(models.Model):
    """How many times a study's labels (submitted annotations, resolutions) have changed.

    Derived data, kept so "have the labels changed?" is one primary-key read instead of an aggregate over
    every label of the study: the annotation and resolution services bump it with F() in the same
    transaction as the change. A missing row means no change was recorded yet (version 0).
    """

    study = models.OneToOneField(Study, on_delete=models.CASCADE, primary_key=True, related_name="+")
    number = models.PositiveBigIntegerField(default=0)
    changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "study labels version"

    def __str__(self) -> str:
        return f"labels of study {self.study_id}: version {self.number}"
