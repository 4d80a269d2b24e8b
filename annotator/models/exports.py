"""Export jobs: one build of a study's replication package, with its progress and the file it produced."""

from django.conf import settings
from django.db import models

from annotator.jobs import heartbeat_is_stale
from core.models import TimeStampedModel


class ExportJob(TimeStampedModel):
    class Kind(models.TextChoices):
        REPLICATION = "replication", "Replication package"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        # The queue (broker) could not be reached: saved, sent again by the reaper or "Retry".
        NOT_QUEUED = "not_queued", "Not queued"
        CANCELLED = "cancelled", "Cancelled"

    study = models.ForeignKey("annotator.Study", on_delete=models.CASCADE, related_name="export_jobs")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.REPLICATION)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    # The step being written ("issues", "labels", ...) and how many of the steps are done.
    step = models.CharField(max_length=60, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    file = models.FileField(upload_to="exports/%Y/%m/", blank=True, max_length=300)
    size_bytes = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)
    # Files in the package with their row counts, e.g. {"final_labels.jsonl": 637}.
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="export_jobs"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # See ImportJob: written while the build runs; a stale one means its worker is gone.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of study {self.study_id} #{self.pk} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in {self.Status.PENDING, self.Status.RUNNING}

    @property
    def is_stale(self) -> bool:
        """Running, but its heartbeat stopped: the worker building it is gone."""
        return self.status == self.Status.RUNNING and heartbeat_is_stale(self.heartbeat_at)

    @property
    def is_retryable(self) -> bool:
        return self.status in {self.Status.FAILED, self.Status.NOT_QUEUED} or self.is_stale

    @property
    def is_cancellable(self) -> bool:
        return self.status in {self.Status.PENDING, self.Status.FAILED, self.Status.NOT_QUEUED} or self.is_stale
