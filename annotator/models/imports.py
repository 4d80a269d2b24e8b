"""Import jobs: one run of an importer, with its progress, counts, cursor and errors."""

from django.conf import settings
from django.db import models

from annotator.jobs import heartbeat_is_stale
from core.models import TimeStampedModel


class ImportJob(TimeStampedModel):
    class Kind(models.TextChoices):
        FILE = "file", "File"
        GITHUB = "github", "GitHub"
        SHEETS = "sheets", "Spreadsheets"
        # The spreadsheet wizard's reading of its uploaded files (in a worker, before the steps use them).
        SHEET_READ = "sheet_read", "Spreadsheet reading"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        WAITING = "waiting", "Waiting for rate limit"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        # The queue (broker) could not be reached: saved, sent again by the reaper or "Retry".
        NOT_QUEUED = "not_queued", "Not queued"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    parameters = models.JSONField(default=dict, blank=True)
    upload = models.FileField(upload_to="imports/%Y/%m/", blank=True)
    # created / updated / unchanged / invalid, plus importer-specific counts (comments, requests, ...).
    counts = models.JSONField(default=dict, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True)
    # Where a resumable importer continues after an interruption (e.g. the next page URL).
    cursor = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    problems = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="import_jobs"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    resume_at = models.DateTimeField(null=True, blank=True)
    # Written every few seconds by the process running the job: a running job whose heartbeat has
    # stopped lost its worker, and the reaper re-queues or fails it.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # Claims of the job by a worker; a job whose worker keeps dying is failed after JOB_MAX_ATTEMPTS.
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} import #{self.pk} ({self.status})"

    @property
    def duration(self):
        if self.started_at and self.finished_at:
            return self.finished_at - self.started_at
        return None

    @property
    def is_active(self) -> bool:
        return self.status in {self.Status.PENDING, self.Status.RUNNING, self.Status.WAITING}

    @property
    def is_stale(self) -> bool:
        """Running, but its heartbeat stopped: the worker running it is gone."""
        return self.status == self.Status.RUNNING and heartbeat_is_stale(self.heartbeat_at)

    @property
    def is_queued_kind(self) -> bool:
        """Run by a worker (so it can be sent again), not in-process by a command."""
        if self.kind in (self.Kind.GITHUB, self.Kind.SHEET_READ):
            return True
        return self.kind == self.Kind.FILE and bool(self.upload)

    @property
    def is_retryable(self) -> bool:
        return self.is_queued_kind and (self.status in {self.Status.FAILED, self.Status.NOT_QUEUED} or self.is_stale)

    @property
    def is_cancellable(self) -> bool:
        waiting = {self.Status.PENDING, self.Status.WAITING, self.Status.FAILED, self.Status.NOT_QUEUED}
        return self.is_queued_kind and (self.status in waiting or self.is_stale)


class ImportedIssue(models.Model):
    """An issue an import job (a file or a GitHub import) wrote or found unchanged: what an import batch holds,
    for sample frames and the issue list's import filter."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="imported_issues")
    issue = models.ForeignKey("annotator.Issue", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "issue"], name="imported_issue_unique")]

    def __str__(self) -> str:
        return f"issue {self.issue_id} in import {self.job_id}"
