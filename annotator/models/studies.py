"""Studies: the sample of issues, who labels what, each rater's labels, and the final resolution.

Labels are never deleted by accident: everything that leads to an annotation or a resolution
is protected, and the history tables are append-only (services only ever insert into them).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.models import AuditEntry, TimeStampedModel


class Study(TimeStampedModel):
    class Phase(models.TextChoices):
        PILOT = "pilot", "Pilot"
        LABELLING = "labelling", "Labelling"
        ADJUDICATION = "adjudication", "Adjudication"
        PUBLISHED = "published", "Published"

    class AssignmentMode(models.TextChoices):
        BALANCED = "balanced", "Balanced across raters and rater pairs"
        FIXED = "fixed", "Fixed raters: every issue to the same raters"

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    taxonomy_version = models.ForeignKey("taxonomy.TaxonomyVersion", on_delete=models.PROTECT, related_name="studies")
    dimensions = models.ManyToManyField("taxonomy.Dimension", related_name="studies", blank=True)
    raters_per_issue = models.PositiveSmallIntegerField(default=2)
    assignment_mode = models.CharField(max_length=10, choices=AssignmentMode.choices, default=AssignmentMode.BALANCED)
    blind = models.BooleanField(default=True)
    guidelines = models.TextField(blank=True, help_text="Markdown, shown to raters next to every issue.")
    phase = models.CharField(max_length=15, choices=Phase.choices, default=Phase.PILOT)
    agreement_threshold = models.DecimalField(max_digits=4, decimal_places=3, default=0.8)
    pilot_size = models.PositiveIntegerField(default=0)
    anonymous_adjudication = models.BooleanField(
        default=False, help_text='Adjudicators see "Rater 1" / "Rater 2" instead of the raters\' names.'
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="created_studies"
    )

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(condition=Q(raters_per_issue__gte=1), name="study_raters_per_issue_positive"),
            models.CheckConstraint(
                condition=Q(agreement_threshold__gte=0) & Q(agreement_threshold__lte=1),
                name="study_agreement_threshold_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class StudyMember(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        RATER = "rater", "Rater"
        ADJUDICATOR = "adjudicator", "Adjudicator"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="study_memberships")
    role = models.CharField(max_length=12, choices=Role.choices)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "role", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "user", "role"], name="study_member_unique_role"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.study}"


class StudyRound(models.Model):
    """One draw of issues into a study; the frame, size and seed are kept so a paper can report them."""

    class Kind(models.TextChoices):
        PILOT = "pilot", "Pilot"
        MAIN = "main", "Main"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.MAIN)
    filters = models.JSONField(default=dict, blank=True)  # the sample frame
    size = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    # {"mode": "none" | "proportional" | "per_repository", "per_repository": n}
    stratification = models.JSONField(default=dict, blank=True)
    frame = models.ForeignKey(
        "annotator.StudyFrame", null=True, blank=True, on_delete=models.PROTECT, related_name="rounds"
    )
    # Partial overlap: {"mode": "all"} (every issue to raters_per_issue raters), {"mode": "percent", "value": 20}
    # or {"mode": "count", "value": 60}: that many issues to raters_per_issue raters, the rest to one rater each.
    overlap = models.JSONField(default=dict, blank=True)
    double_coded = models.PositiveIntegerField(default=0)  # issues of the round in the reliability subset
    pool_size = models.PositiveIntegerField(default=0)  # issues in the frame after excluding earlier rounds
    drawn = models.PositiveIntegerField(default=0)  # issues actually drawn (fewer when the frame is small)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "number"]
        constraints = [models.UniqueConstraint(fields=["study", "number"], name="study_round_number_unique")]

    def __str__(self) -> str:
        return f"{self.study} round {self.number} ({self.kind})"


class StudyIssue(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="study_issues")
    issue = models.ForeignKey("annotator.Issue", on_delete=models.PROTECT, related_name="study_issues")
    round = models.ForeignKey(StudyRound, on_delete=models.PROTECT, related_name="study_issues")
    position = models.PositiveIntegerField()
    # In the reliability subset: labelled by more than one rater, so agreement is measured on it. A single-coded
    # issue is final when its one rater submits.
    double_coded = models.BooleanField(default=True)

    class Meta:
        ordering = ["study", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "issue"], name="study_issue_unique"),
            models.UniqueConstraint(fields=["study", "position"], name="study_issue_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.study} #{self.position}: issue {self.issue_id}"


class Assignment(models.Model):
    class Status(models.TextChoices):
        ASSIGNED = "assigned", "Assigned"
        DRAFTED = "drafted", "Drafted"
        SUBMITTED = "submitted", "Submitted"
        SKIPPED = "skipped", "Skipped"

    study_issue = models.ForeignKey(StudyIssue, on_delete=models.PROTECT, related_name="assignments")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ASSIGNED)
    skip_reason = models.CharField(max_length=500, blank=True)
    assigned_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    # Copies of study_issue.study / .position, so "my next open issue" is one index range scan
    # (the partial index below) instead of a join sorted over the rater's whole queue.
    study = models.ForeignKey(Study, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["study_issue__position", "rater_id"]
        constraints = [
            models.UniqueConstraint(fields=["study_issue", "rater"], name="assignment_unique_rater"),
            models.CheckConstraint(
                condition=~Q(status="skipped") | ~Q(skip_reason=""), name="assignment_skip_has_reason"
            ),
        ]
        indexes = [
            models.Index(fields=["rater", "status"], name="assignment_rater_status_idx"),
            models.Index(
                fields=["rater", "study", "position"],
                condition=Q(status__in=["assigned", "drafted"]),
                name="assignment_open_queue_idx",
            ),
            models.Index(fields=["rater", "status", "submitted_at"], name="assignment_rater_submitted_idx"),
            # The rater's whole queue in order: keyset pages of "my assignments", previous / next on the page.
            models.Index(fields=["rater", "study", "position"], name="assignment_rater_queue_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.rater} on {self.study_issue} ({self.status})"


class RaterProgress(models.Model):
    """How many of one rater's assignments in one round are in each status.

    Derived data, kept so "done / total" never counts a rater's whole queue: the services that create
    assignments or change their status adjust it in the same transaction (F() updates), and
    `manage.py rebuild_progress` recounts it from the assignments.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    round = models.ForeignKey(StudyRound, on_delete=models.CASCADE, related_name="rater_progress")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # One counter per Assignment.Status value, named after it.
    assigned = models.IntegerField(default=0)
    drafted = models.IntegerField(default=0)
    submitted = models.IntegerField(default=0)
    skipped = models.IntegerField(default=0)

    class Meta:
        ordering = ["study", "round", "rater"]
        verbose_name_plural = "rater progress"
        constraints = [
            models.UniqueConstraint(fields=["study", "rater", "round"], name="rater_progress_unique"),
            models.CheckConstraint(
                condition=Q(assigned__gte=0) & Q(drafted__gte=0) & Q(submitted__gte=0) & Q(skipped__gte=0),
                name="rater_progress_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rater} in {self.round}: {self.submitted}/{self.total}"

    @property
    def total(self) -> int:
        return self.assigned + self.drafted + self.submitted + self.skipped


class Annotation(TimeStampedModel):
    """One rater's labels for one issue in one study."""

    class ExcludedReason(models.TextChoices):
        NONE = "", "Not excluded"
        NOT_A_BUG = "not_a_bug", "Not a bug"
        OUT_OF_SCOPE = "out_of_scope", "Out of scope"

    class Confidence(models.IntegerChoices):
        LOW = 1, "Low"
        MEDIUM = 2, "Medium"
        HIGH = 3, "High"

    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="annotation")
    note = models.TextField(blank=True)
    excluded = models.BooleanField(default=False)
    excluded_reason = models.CharField(max_length=20, choices=ExcludedReason.choices, blank=True)
    excluded_text = models.TextField(blank=True)
    confidence = models.PositiveSmallIntegerField(choices=Confidence.choices, null=True, blank=True)
    # Open coding: {dimension_key: "a category the taxonomy lacks"}.
    proposals = models.JSONField(default=dict, blank=True)
    time_spent_seconds = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=1)  # optimistic locking
    submitted_at = models.DateTimeField(null=True, blank=True)
    frozen = models.BooleanField(default=False)

    class Meta:
        ordering = ["assignment_id"]
        constraints = [
            models.CheckConstraint(condition=Q(version__gte=1), name="annotation_version_positive"),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True) | (Q(confidence__gte=1) & Q(confidence__lte=3)),
                name="annotation_confidence_1_3",
            ),
            models.CheckConstraint(
                condition=Q(excluded=False) | ~Q(excluded_reason=""), name="annotation_excluded_has_reason"
            ),
            models.CheckConstraint(
                condition=Q(frozen=False) | Q(submitted_at__isnull=False), name="annotation_frozen_is_submitted"
            ),
        ]

    def __str__(self) -> str:
        return f"annotation {self.pk} ({self.assignment})"


class AnnotationValue(models.Model):
    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="values")
    dimension = models.ForeignKey("taxonomy.Dimension", on_delete=models.PROTECT, related_name="+")
    category = models.ForeignKey("taxonomy.Category", on_delete=models.PROTECT, related_name="annotation_values")
    # Open coding: the rater's proposal this label came from, when a taxonomy version move turned a proposal
    # sorted on the card board into its category; empty when the rater chose the category.
    from_proposal = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["annotation", "dimension", "category"]
        constraints = [
            models.UniqueConstraint(fields=["annotation", "category"], name="annotation_value_unique_category"),
        ]

    def __str__(self) -> str:
        return f"{self.annotation_id}: {self.category_id}"


class AnnotationHistory(AuditEntry):
    """Append-only audit trail of an annotation: a snapshot before and after every change."""

    class Action(models.TextChoices):
        DRAFT = "draft", "Draft saved"
        SUBMIT = "submit", "Submitted"
        REVISE = "revise", "Revised after submitting"
        FREEZE = "freeze", "Frozen for adjudication"
        REOPEN = "reopen", "Reopened"
        SKIP = "skip", "Skipped"
        FROM_PROPOSAL = "proposal", "Labelled from a sorted proposal"

    annotation = models.ForeignKey(Annotation, on_delete=models.PROTECT, related_name="history")
    action = models.CharField(max_length=10, choices=Action.choices)

    class Meta:
        ordering = ["annotation", "at", "id"]
        verbose_name_plural = "annotation history"

    def __str__(self) -> str:
        return f"{self.action} of annotation {self.annotation_id} at {self.at:%Y-%m-%d %H:%M}"


class Resolution(models.Model):
    """The final label of one issue in a study, after comparing the raters' annotations.

    Created when every rater of the issue has submitted: dimensions the raters agree on are decided
    at once (unanimous), the others stay pending until an adjudicator decides them.
    """

    class Method(models.TextChoices):
        UNANIMOUS = "unanimous", "Unanimous"
        NEGOTIATED = "negotiated", "Negotiated by the raters together"
        ADJUDICATED = "adjudicated", "Decided by the adjudicator"
        SINGLE_CODED = "single_coded", "Single-coded: the one rater's labels"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for adjudication"
        SENT_BACK = "sent_back", "Sent back to the raters"
        RESOLVED = "resolved", "Resolved"

    class Reason(models.TextChoices):
        NONE = "", "—"
        AMBIGUOUS_TEXT = "ambiguous_text", "Ambiguous issue text"
        GUIDELINE_GAP = "guideline_gap", "Guideline gap"
        TAXONOMY_GAP = "taxonomy_gap", "Taxonomy gap or overlap"
        RATER_ERROR = "rater_error", "Rater error"
        OTHER = "other", "Other"

    # Pseudo-dimension key for "one rater excluded the issue, the other did not".
    EXCLUDED_KEY = "excluded"

    study_issue = models.OneToOneField(StudyIssue, on_delete=models.PROTECT, related_name="resolution")
    # The final labels are ResolutionValue rows (related name `final_values`); a dimension is decided when it
    # has a key in `methods`, so an optional dimension decided empty has a method and no row.
    methods = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "How each decided dimension was reached: {dimension_key: 'unanimous' | 'negotiated' | 'adjudicated' | "
            "'single_coded'}; "
            "the key 'excluded' appears when the raters disagreed about excluding the issue."
        ),
    )
    disagreement_keys = models.CharField(
        max_length=2000,
        blank=True,
        help_text="Dimension keys the raters disagreed on (and 'excluded'), as ',a,b,' so a key is found by ',key,'.",
    )
    disagreement_count = models.PositiveSmallIntegerField(default=0)
    # Resolved by default: code that records a final label (e.g. an import of a prior study) gets a final
    # label; the automatic comparison sets pending explicitly while a dimension is in dispute.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RESOLVED)
    excluded = models.BooleanField(default=False)
    method = models.CharField(
        max_length=12,
        choices=Method.choices,
        blank=True,
        help_text="Overall: the least direct method of any dimension; empty while pending.",
    )
    disagreement_reason = models.CharField(max_length=200, choices=Reason.choices, blank=True)
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="resolutions"
    )
    decided_at = models.DateTimeField()
    version = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ["study_issue"]
        constraints = [
            models.CheckConstraint(condition=Q(version__gte=1), name="resolution_version_positive"),
            models.CheckConstraint(
                condition=~Q(status="resolved") | ~Q(method=""), name="resolution_resolved_has_method"
            ),
        ]
        indexes = [models.Index(fields=["status", "disagreement_count"], name="resolution_status_count_idx")]

    def __str__(self) -> str:
        return f"resolution of {self.study_issue} ({self.get_status_display()})"

    @property
    def disagreements(self) -> list[str]:
        return [key for key in self.disagreement_keys.split(",") if key]


class ResolutionValue(models.Model):
    """One final label: a category of a decided dimension, or the proposal of a rater the adjudicator settled on.

    Both are protected: a category a final label uses cannot be deleted, nor the annotation that proposed it. A
    proposal-valued label keeps the text as settled (the rater may revise their annotation later); once the
    card board has sorted that proposal into a category and the study moves to that version, the row becomes
    the category.
    """

    resolution = models.ForeignKey(Resolution, on_delete=models.CASCADE, related_name="final_values")
    dimension = models.ForeignKey("taxonomy.Dimension", on_delete=models.PROTECT, related_name="+")
    category = models.ForeignKey(
        "taxonomy.Category", on_delete=models.PROTECT, null=True, blank=True, related_name="resolution_values"
    )
    proposal_annotation = models.ForeignKey(
        Annotation, on_delete=models.PROTECT, null=True, blank=True, related_name="settled_proposals"
    )
    proposal = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["resolution", "dimension", "category", "pk"]
        verbose_name = "final label"
        constraints = [
            models.CheckConstraint(
                condition=(Q(category__isnull=False) & Q(proposal_annotation__isnull=True) & Q(proposal=""))
                | (Q(category__isnull=True) & Q(proposal_annotation__isnull=False) & ~Q(proposal="")),
                name="resolution_value_category_or_proposal",
            ),
            models.UniqueConstraint(
                fields=["resolution", "dimension", "category"],
                condition=Q(category__isnull=False),
                name="resolution_value_unique_category",
            ),
            models.UniqueConstraint(
                fields=["resolution", "dimension"],
                condition=Q(category__isnull=True),
                name="resolution_value_one_proposal",
            ),
        ]

    def __str__(self) -> str:
        label = self.category_id if self.category_id is not None else f"proposal {self.proposal!r}"
        return f"{self.resolution_id}: {label}"


class ResolutionHistory(AuditEntry):
    class Action(models.TextChoices):
        AUTO = "auto", "Compared automatically"
        RECORD = "record", "Recorded"
        REVISE = "revise", "Revised"
        SEND_BACK = "send_back", "Sent back to the raters"

    resolution = models.ForeignKey(Resolution, on_delete=models.PROTECT, related_name="history")
    action = models.CharField(max_length=10, choices=Action.choices)

    class Meta:
        ordering = ["resolution", "at", "id"]
        verbose_name_plural = "resolution history"

    def __str__(self) -> str:
        return f"{self.action} of resolution {self.resolution_id}"
