"""Each rater's first, independent submission of an issue: the record reliability is computed from.

A paper reports inter-rater reliability "before discussion". Those figures must come from what each rater
submitted on their own, so they can never change when an issue is later sent back, discussed and revised.
The annotation itself moves on (revisions, re-labelling after a taxonomy move); this record does not.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class FirstSubmission(models.Model):
    """One rater's first submission of one study issue, kept as it was: written once, never updated or deleted.

    Written in the transaction of the rater's first submit, by an import of a prior study's rater sheet, or
    (for annotations submitted before this record existed) from the first "submit" entry of the history.
    """

    class Source(models.TextChoices):
        APP = "app", "Submitted in Taxonomist"
        SPREADSHEET = "spreadsheet", "Imported from a rater's spreadsheet"
        PACKAGE = "package", "Imported from a replication package"
        HISTORY = "history", "Recovered from the annotation history"

    annotation = models.OneToOneField("annotator.Annotation", on_delete=models.PROTECT, related_name="first_submission")
    # Copies of annotation.assignment.study_issue / .rater, so reports read snapshots without joins.
    study_issue = models.ForeignKey("annotator.StudyIssue", on_delete=models.PROTECT, related_name="first_submissions")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    submitted_at = models.DateTimeField()
    excluded = models.BooleanField(default=False)
    excluded_reason = models.CharField(max_length=20, blank=True)
    # Open coding: {dimension_key: "a category the taxonomy lacks"}, as submitted.
    proposals = models.JSONField(default=dict, blank=True)
    confidence = models.PositiveSmallIntegerField(null=True, blank=True)
    note = models.TextField(blank=True)
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.APP)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study_issue", "rater_id"]
        constraints = [
            models.UniqueConstraint(fields=["study_issue", "rater"], name="first_submission_unique_rater"),
            models.CheckConstraint(
                condition=Q(excluded=False) | ~Q(excluded_reason=""), name="first_submission_excluded_has_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"first submission of annotation {self.annotation_id}"


class FirstSubmissionValue(models.Model):
    """One category of a first submission (protected: a category a rater once chose cannot be deleted)."""

    first_submission = models.ForeignKey(FirstSubmission, on_delete=models.PROTECT, related_name="values")
    dimension = models.ForeignKey("taxonomy.Dimension", on_delete=models.PROTECT, related_name="+")
    category = models.ForeignKey("taxonomy.Category", on_delete=models.PROTECT, related_name="first_submission_values")

    class Meta:
        ordering = ["first_submission", "dimension", "category"]
        constraints = [
            models.UniqueConstraint(
                fields=["first_submission", "category"], name="first_submission_value_unique_category"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.first_submission_id}: {self.category_id}"
