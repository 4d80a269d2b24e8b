"""Forms for setting up a study and drawing its sample."""

import random
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model

from annotator.models import ImportJob, Issue, Repository, Study, StudyFrame, StudyRound
from annotator.selectors.imports import import_job_label, import_jobs_visible
from annotator.selectors.issues import IssueFilters
from annotator.services.frames import BATCH_KINDS, MAX_EXPLICIT_ISSUES, FrameSpec
from annotator.services.sampling import (
    OVERLAP_ALL,
    OVERLAP_COUNT,
    OVERLAP_PERCENT,
    STRATIFY_NONE,
    STRATIFY_PER_REPOSITORY,
    STRATIFY_PROPORTIONAL,
    Overlap,
    SampleFilters,
)
from core.form_fields import IdChoiceField, IdMultipleChoiceField
from core.numbers import ascii_int
from taxonomy.models import Dimension, TaxonomyVersion


class DimensionChoiceField(IdMultipleChoiceField):
    def label_from_instance(self, obj: Dimension) -> str:
        return f"{obj.version.taxonomy.name} v{obj.version.number}: {obj.name}"


class UserChoiceField(IdMultipleChoiceField):
    def label_from_instance(self, obj) -> str:
        return f"{obj} ({obj.username})" if str(obj) != obj.username else obj.username


class ImportJobChoiceField(IdChoiceField):
    def label_from_instance(self, obj: ImportJob) -> str:
        return f"#{obj.pk} {import_job_label(obj)} ({obj.get_kind_display()}, {obj.created_at:%Y-%m-%d})"


class StudyCreateForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    taxonomy_version = IdChoiceField(queryset=TaxonomyVersion.objects.none())
    dimensions = DimensionChoiceField(
        queryset=Dimension.objects.none(),
        required=False,
        help_text="Which dimensions raters label. None chosen: all dimensions of the version.",
    )
    raters = UserChoiceField(queryset=get_user_model().objects.none())
    adjudicators = UserChoiceField(queryset=get_user_model().objects.none(), required=False)
    raters_per_issue = forms.IntegerField(min_value=1, max_value=10, initial=2)
    assignment_mode = forms.ChoiceField(choices=Study.AssignmentMode.choices, initial=Study.AssignmentMode.BALANCED)
    blind = forms.BooleanField(
        required=False, initial=True, help_text="Raters never see each other's labels (recommended)."
    )
    guidelines = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}), required=False, help_text="Markdown; shown to raters on every issue."
    )
    pilot_size = forms.IntegerField(min_value=0, initial=0, help_text="Issues in the pilot round (0: no pilot).")
    agreement_threshold = forms.DecimalField(
        min_value=Decimal(0), max_value=Decimal(1), decimal_places=3, initial=Decimal("0.8")
    )
    # The sample frame: which issues the study's rounds are drawn from.
    frame_kind = forms.ChoiceField(
        choices=StudyFrame.Kind.choices, initial=StudyFrame.Kind.ALL, label="Sample frame", required=False
    )
    import_job = ImportJobChoiceField(
        queryset=ImportJob.objects.none(),
        required=False,
        label="Import batch",
        help_text="A finished file or GitHub import: the issues it wrote or found unchanged.",
    )
    frame_repositories = IdMultipleChoiceField(queryset=Repository.objects.none(), required=False, label="Repositories")
    search_q = forms.CharField(required=False, max_length=200, label="Search words")
    search_label = forms.CharField(required=False, max_length=200, label="Label")
    search_state = forms.ChoiceField(choices=[("", "Any"), *Issue.State.choices[:2]], required=False, label="State")
    search_kind = forms.ChoiceField(choices=[("", "Any"), *Issue.Kind.choices], required=False, label="Issue kind")
    search_repository = IdChoiceField(queryset=Repository.objects.none(), required=False, label="Repository")
    search_import_job = ImportJobChoiceField(queryset=ImportJob.objects.none(), required=False, label="Import")
    search_created_from = forms.DateField(
        required=False, label="Created from", widget=forms.DateInput(attrs={"type": "date"})
    )
    search_created_to = forms.DateField(
        required=False, label="Created to", widget=forms.DateInput(attrs={"type": "date"})
    )
    frame_issues = forms.CharField(
        required=False,
        max_length=200_000,
        label="Issues",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Issue ids or addresses, one per line (demo issues count only when listed here).",
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["taxonomy_version"].queryset = TaxonomyVersion.objects.select_related("taxonomy").order_by(
            "taxonomy__name", "-number"
        )
        dimensions = Dimension.objects.select_related("version__taxonomy").order_by(
            "version__taxonomy__name", "version__number", "order", "key"
        )
        chosen = ascii_int(self.data.get("taxonomy_version")) if self.is_bound else None
        if chosen is not None:
            # Only the chosen version's dimensions are valid choices (the page's script hides the others).
            dimensions = dimensions.filter(version_id=chosen)
        self.fields["dimensions"].queryset = dimensions
        users = get_user_model().objects.filter(is_active=True).order_by("username")
        self.fields["raters"].queryset = users
        self.fields["adjudicators"].queryset = users
        # The imports the user may see (the imports pages' rule; without a user, as for a command: every one).
        jobs = import_jobs_visible(user=user) if user is not None else ImportJob.objects.all()
        jobs = jobs.filter(kind__in=BATCH_KINDS).order_by("-created_at", "-id")
        self.fields["import_job"].queryset = jobs.filter(status=ImportJob.Status.DONE)
        self.fields["search_import_job"].queryset = jobs
        repositories = Repository.objects.order_by("owner", "name")
        self.fields["frame_repositories"].queryset = repositories
        self.fields["search_repository"].queryset = repositories

    def clean(self):
        data = super().clean()
        version, dimensions = data.get("taxonomy_version"), data.get("dimensions") or []
        if version is not None and any(d.version_id != version.pk for d in dimensions):
            self.add_error("dimensions", "Choose dimensions of the chosen taxonomy version only.")
        return data

    def clean_frame_issues(self) -> list[int]:
        """Issue ids, or addresses of imported issues, one per line."""
        lines = [line.strip() for line in self.cleaned_data["frame_issues"].splitlines() if line.strip()]
        if len(lines) > MAX_EXPLICIT_ISSUES:
            raise forms.ValidationError(f"List at most {MAX_EXPLICIT_ISSUES} issues.")
        numbers = [(line, ascii_int(line)) for line in lines]
        ids = [number for _, number in numbers if number is not None]
        urls = [line for line, number in numbers if number is None]
        if urls:
            found = dict(Issue.objects.filter(url__in=urls).values_list("url", "pk"))
            unknown = [url for url in urls if url not in found]
            if unknown:
                raise forms.ValidationError(f"No imported issue has the address {unknown[0][:200]}.")
            ids += [found[url] for url in urls]
        return ids

    def frame(self) -> FrameSpec:
        data = self.cleaned_data
        kind = data.get("frame_kind") or StudyFrame.Kind.ALL
        job, search_job = data.get("import_job"), data.get("search_import_job")
        repository = data.get("search_repository")
        return FrameSpec(
            kind=kind,
            import_job_id=job.pk if job else None,
            repository_ids=tuple(r.pk for r in data.get("frame_repositories") or ()),
            search=IssueFilters(
                q=data.get("search_q", "").strip(),
                repository=repository.pk if repository else None,
                state=data.get("search_state", ""),
                kind=data.get("search_kind", ""),
                label=data.get("search_label", "").strip(),
                created_from=data.get("search_created_from"),
                created_to=data.get("search_created_to"),
                import_job=search_job.pk if search_job else None,
            ),
            issue_ids=tuple(data.get("frame_issues") or ()),
        )

    @staticmethod
    def initial_from_search(filters: IssueFilters) -> dict:
        """Initial values that make the issue search `filters` the new study's frame."""
        if not filters.active:
            return {}
        if filters == IssueFilters(import_job=filters.import_job):  # only the import: the import's batch
            return {"frame_kind": StudyFrame.Kind.IMPORT_BATCH, "import_job": filters.import_job}
        return {
            "frame_kind": StudyFrame.Kind.SEARCH,
            "search_q": filters.q,
            "search_label": filters.label,
            "search_state": filters.state,
            "search_kind": filters.kind,
            "search_repository": filters.repository,
            "search_created_from": filters.created_from,
            "search_created_to": filters.created_to,
            "search_import_job": filters.import_job,
        }

    def dimension_versions(self) -> dict[str, int]:
        """dimension id -> version id, for the page's script to show only the chosen version's dimensions."""
        return {str(pk): version for pk, version in self.fields["dimensions"].queryset.values_list("pk", "version")}


class SampleDrawForm(forms.Form):
    round_kind = forms.ChoiceField(choices=StudyRound.Kind.choices, initial=StudyRound.Kind.MAIN, label="Round")
    repositories = IdMultipleChoiceField(
        queryset=Repository.objects.none(), required=False, help_text="None chosen: all repositories."
    )
    state = forms.ChoiceField(choices=[("", "Any"), *Issue.State.choices[:2]], required=False)
    kind = forms.ChoiceField(choices=[("", "Any"), *Issue.Kind.choices], required=False, label="Issue kind")
    labels = forms.CharField(required=False, help_text="Comma-separated; an issue with any of them matches.")
    created_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    created_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    text = forms.CharField(required=False, label="Text contains", max_length=200)
    stratification = forms.ChoiceField(
        choices=[
            (STRATIFY_NONE, "None (simple random sample)"),
            (STRATIFY_PROPORTIONAL, "By repository, proportional"),
            (STRATIFY_PER_REPOSITORY, "By repository, a fixed number each"),
        ],
        initial=STRATIFY_NONE,
    )
    size = forms.IntegerField(min_value=1, required=False)
    per_repository = forms.IntegerField(min_value=1, required=False, label="Issues per repository")
    seed = forms.IntegerField(
        min_value=0, max_value=2**62, help_text="Recorded with the round: the same frame and seed draw the same sample."
    )
    overlap_mode = forms.ChoiceField(
        label="Overlap",
        choices=[
            (OVERLAP_ALL, "Every issue to every rater of an issue"),
            (OVERLAP_PERCENT, "A percentage of issues double-coded, the rest to one rater each"),
            (OVERLAP_COUNT, "A number of issues double-coded, the rest to one rater each"),
        ],
        initial=OVERLAP_ALL,
        required=False,
    )
    overlap_value = forms.IntegerField(
        min_value=0,
        required=False,
        label="Double-coded (% or issues)",
        help_text="The reliability subset: agreement is computed on these issues only.",
    )

    def __init__(self, *args, study: Study | None = None, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("seed", random.SystemRandom().randrange(1, 10**9))
        super().__init__(*args, **kwargs)
        self.fields["repositories"].queryset = Repository.objects.order_by("owner", "name")
        if study is not None and study.pilot_size and not study.rounds.exists():
            self.fields["round_kind"].initial = StudyRound.Kind.PILOT
            self.fields["size"].initial = study.pilot_size

    def clean(self):
        data = super().clean()
        if data.get("stratification") == STRATIFY_PER_REPOSITORY:
            if not data.get("per_repository"):
                self.add_error("per_repository", "Give the number of issues to draw from each repository.")
        elif not data.get("size"):
            self.add_error("size", "Give the number of issues to draw.")
        if data.get("overlap_mode") in (OVERLAP_PERCENT, OVERLAP_COUNT) and data.get("overlap_value") is None:
            self.add_error("overlap_value", "Give the percentage or number of double-coded issues.")
        return data

    def overlap(self) -> Overlap:
        mode = self.cleaned_data.get("overlap_mode") or OVERLAP_ALL
        return Overlap(mode=mode, value=self.cleaned_data.get("overlap_value") or 0)

    def filters(self) -> SampleFilters:
        data = self.cleaned_data
        return SampleFilters(
            repository_ids=sorted(repo.pk for repo in data["repositories"]),
            state=data["state"],
            kind=data["kind"],
            labels=[label.strip() for label in data["labels"].split(",") if label.strip()],
            created_from=data["created_from"],
            created_to=data["created_to"],
            text=data["text"].strip(),
        )


class StudyUpdateForm(forms.Form):
    # Publishing has checks of its own (every issue resolved, the taxonomy version frozen): it
    # happens through the "Publish" button, never by picking the phase here.
    phase = forms.ChoiceField(choices=[c for c in Study.Phase.choices if c[0] != Study.Phase.PUBLISHED])
    guidelines = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}), required=False)
