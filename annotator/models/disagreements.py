"""A proxy over StudyIssue for the admin's Disagreements list: issues on which the raters differed."""

from django.db import models

from .studies import StudyIssue


class DisagreementQuerySet(models.QuerySet):
    def with_disagreements(self) -> "DisagreementQuerySet":
        return self.filter(resolution__disagreement_count__gt=0)


class Disagreement(StudyIssue):
    """A study issue whose raters disagreed on at least one dimension (or on excluding it)."""

    objects = DisagreementQuerySet.as_manager()

    class Meta:
        proxy = True
        ordering = ["study", "position"]

    def __str__(self) -> str:
        return f"{self.study}: #{self.position} {self.issue.title[:80]}"
