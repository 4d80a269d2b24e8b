"""Phase changes of a study, kept so a paper can say when the pilot ended and on what agreement."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class PhaseChange(models.Model):
    """One move of a study from one phase to another, with the agreement figures at that moment.

    When the owner leaves the pilot although agreement is below the study's threshold, ``reason``
    holds the written justification (required in that case, so ``overridden`` implies a reason).
    """

    study = models.ForeignKey("annotator.Study", on_delete=models.CASCADE, related_name="phase_changes")
    from_phase = models.CharField(max_length=15)
    to_phase = models.CharField(max_length=15)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    overridden = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    # {"threshold": 0.8, "dimensions": [{"key", "name", "measure", "value", "n", "passed"}]}
    figures = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["study", "at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(overridden=False) | ~Q(reason=""), name="phase_change_override_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.study_id}: {self.from_phase} -> {self.to_phase} at {self.at:%Y-%m-%d %H:%M}"
