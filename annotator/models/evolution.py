"""Open coding and taxonomy evolution in a study: card-sorting decisions and moves to a new version."""

from django.conf import settings
from django.db import models


class ProposalDecision(models.Model):
    """What the owner decided about one (normalised) proposal on the card-sorting board."""

    class Action(models.TextChoices):
        ALIAS = "alias", "Alias of an existing category"
        NEW = "new", "New category"
        REJECT = "reject", "Rejected"

    study = models.ForeignKey("annotator.Study", on_delete=models.CASCADE, related_name="proposal_decisions")
    dimension_key = models.SlugField(max_length=60)
    # The normalised text (case and spacing folded): proposals spelled alike are one card.
    proposal = models.CharField(max_length=500)
    action = models.CharField(max_length=10, choices=Action.choices)
    # Categories are named by lineage id: the decision still holds after the taxonomy has moved on.
    target_lineage_id = models.UUIDField(null=True, blank=True)
    # Proposals grouped into one new category share its name.
    new_category_name = models.CharField(max_length=200, blank=True)
    reason = models.TextField(blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now=True)
    applied_to = models.ForeignKey(
        "taxonomy.TaxonomyVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["study", "dimension_key", "proposal"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "dimension_key", "proposal"], name="proposal_decision_unique_per_card"
            ),
            models.CheckConstraint(
                condition=~models.Q(action="alias") | models.Q(target_lineage_id__isnull=False),
                name="proposal_decision_alias_has_target",
            ),
            models.CheckConstraint(
                condition=~models.Q(action="new") | ~models.Q(new_category_name=""),
                name="proposal_decision_new_has_name",
            ),
            models.CheckConstraint(
                condition=~models.Q(action="reject") | ~models.Q(reason=""),
                name="proposal_decision_reject_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dimension_key}: {self.proposal} -> {self.action}"


class StudyVersionMove(models.Model):
    """A study carried from one taxonomy version to a later one, with the full old -> new mapping.

    `mapping` is {category id in from_version: {"kind", "to", "targets"}}; `before` holds every label
    as it was ({"annotations": {id: {dimension key: [category ids]}}, "resolutions": {...}}), so the
    labels under the old version can always be read back (and agreement computed on them).
    """

    study = models.ForeignKey("annotator.Study", on_delete=models.PROTECT, related_name="version_moves")
    from_version = models.ForeignKey("taxonomy.TaxonomyVersion", on_delete=models.PROTECT, related_name="+")
    to_version = models.ForeignKey("taxonomy.TaxonomyVersion", on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    counts = models.JSONField(default=dict)
    mapping = models.JSONField(default=dict)
    before = models.JSONField(default=dict)
    relabel_annotation_ids = models.JSONField(default=list)

    class Meta:
        ordering = ["study", "at", "id"]

    def __str__(self) -> str:
        return f"{self.study} moved v{self.from_version.number} -> v{self.to_version.number}"
