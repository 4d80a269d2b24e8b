"""Forms for setting up a study and drawing its sample."""

import random
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model

from annotator.models import Issue, Repository, Study, StudyRound
from annotator.services.sampling import (
    STRATIFY_NONE,
    STRATIFY_PER_REPOSITORY,
    STRATIFY_PROPORTIONAL,
    SampleFilters,
)
from taxonomy.models import Dimension, TaxonomyVersion


class DimensionChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Dimension) -> str:
        return f"{obj.version.taxonomy.name} v{obj.version.number}: {obj.name}"


class UserChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj) -> str:
        return f"{obj} ({obj.username})" if str(obj) != obj.username else obj.username


class StudyCreateForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    taxonomy_version = forms.ModelChoiceField(queryset=TaxonomyVersion.objects.none())
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["taxonomy_version"].queryset = TaxonomyVersion.objects.select_related("taxonomy").order_by(
            "taxonomy__name", "-number"
        )
        self.fields["dimensions"].queryset = Dimension.objects.select_related("version__taxonomy").order_by(
            "version__taxonomy__name", "version__number", "order", "key"
        )
        users = get_user_model().objects.filter(is_active=True).order_by("username")
        self.fields["raters"].queryset = users
        self.fields["adjudicators"].queryset = users

    def dimension_versions(self) -> dict[str, int]:
        """dimension id -> version id, for the page's script to show only the chosen version's dimensions."""
        return {str(pk): version for pk, version in self.fields["dimensions"].queryset.values_list("pk", "version")}


class SampleDrawForm(forms.Form):
    round_kind = forms.ChoiceField(choices=StudyRound.Kind.choices, initial=StudyRound.Kind.MAIN, label="Round")
    repositories = forms.ModelMultipleChoiceField(
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
        return data

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
