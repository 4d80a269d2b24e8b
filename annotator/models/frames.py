"""Sample frames: which issues a study may draw from, recorded with the study so a paper can state it."""

from django.conf import settings
from django.db import models


class StudyFrame(models.Model):
    """One definition of a study's sample frame. Append-only: a changed frame is a new row (the next number),
    and every round names the frame it was drawn from, so which issues entered when stays on record."""

    class Kind(models.TextChoices):
        ALL = "all", "Every imported issue"
        IMPORT_BATCH = "import_batch", "An import batch"
        REPOSITORIES = "repositories", "A set of repositories"
        SEARCH = "search", "A saved issue search"
        EXPLICIT = "explicit", "An explicit list of issues"

    study = models.ForeignKey("annotator.Study", on_delete=models.CASCADE, related_name="frames")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=15, choices=Kind.choices)
    # What defines the frame, JSON-ready and with names for the paper (search terms, repository names, ids).
    definition = models.JSONField(default=dict, blank=True)
    import_job = models.ForeignKey(
        "annotator.ImportJob", null=True, blank=True, on_delete=models.PROTECT, related_name="study_frames"
    )
    # Issues added to the study by hand (e.g. from search results), outside any draw: recorded like a frame,
    # but never the frame the next draw uses.
    added = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "number"]
        constraints = [
            models.UniqueConstraint(fields=["study", "number"], name="study_frame_number_unique"),
            models.CheckConstraint(
                condition=~models.Q(kind="import_batch") | models.Q(import_job__isnull=False),
                name="study_frame_batch_has_job",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study} frame {self.number} ({self.get_kind_display()})"
