"""The labelling form's POST fallback (works without JavaScript) and the skip form."""

from django import forms

from annotator.models import Annotation
from annotator.services.annotations import (
    EXCLUDED_TEXT_MAX_CHARS,
    NOTE_MAX_CHARS,
    PROPOSAL_MAX_CHARS,
    AnnotationInput,
)
from core.numbers import ascii_int


class SkipForm(forms.Form):
    reason = forms.CharField(max_length=500, widget=forms.TextInput(attrs={"placeholder": "Why skip this issue?"}))


class AnnotationForm(forms.Form):
    """Built from the study's dimensions: `dim_<key>` holds category ids, `proposal_<key>` free text."""

    ACTION_DRAFT = "draft"
    ACTION_SUBMIT = "submit"

    action = forms.ChoiceField(choices=[(ACTION_DRAFT, "Save draft"), (ACTION_SUBMIT, "Submit")])
    version = forms.IntegerField(min_value=1)
    elapsed_seconds = forms.IntegerField(min_value=0, required=False)
    note = forms.CharField(required=False, max_length=NOTE_MAX_CHARS, widget=forms.Textarea)
    excluded = forms.BooleanField(required=False)
    excluded_reason = forms.ChoiceField(choices=Annotation.ExcludedReason.choices, required=False)
    excluded_text = forms.CharField(required=False, max_length=EXCLUDED_TEXT_MAX_CHARS)
    confidence = forms.TypedChoiceField(
        choices=[("", "—"), *Annotation.Confidence.choices], coerce=int, empty_value=None, required=False
    )

    def __init__(self, *args, dimensions, **kwargs):
        super().__init__(*args, **kwargs)
        self.dimensions = list(dimensions)
        for dimension in self.dimensions:
            self.fields[f"proposal_{dimension.key}"] = forms.CharField(required=False, max_length=PROPOSAL_MAX_CHARS)

    def clean(self):
        data = super().clean()
        # Category ids are checked by the service against the study's taxonomy version; here only their form.
        values: dict[str, list[int]] = {}
        for dimension in self.dimensions:
            numbers = [ascii_int(v) for v in self.data.getlist(f"dim_{dimension.key}") if v != ""]
            if None in numbers:
                raise forms.ValidationError("A category choice could not be read; reload the page.")
            if numbers:
                values[dimension.key] = numbers
        data["values"] = values
        return data

    def problem(self) -> str:
        """What to tell the rater when the form is not valid: a text over its length is named, anything else needs a
        reload (the page sends nothing else a person can get wrong)."""
        names = {"note": "Note", "excluded_text": "Exclusion details"}
        names.update({f"proposal_{d.key}": f"Proposal for {d.name}" for d in self.dimensions})
        for name, errors in self.errors.items():
            if name in names:
                return f"{names[name]}: {errors[0]}"
        return "The form could not be read; reload the page and try again."

    def to_input(self) -> AnnotationInput:
        data = self.cleaned_data
        return AnnotationInput(
            values=data["values"],
            note=data["note"],
            excluded=data["excluded"],
            excluded_reason=data["excluded_reason"],
            excluded_text=data["excluded_text"],
            confidence=data["confidence"],
            proposals={d.key: data[f"proposal_{d.key}"] for d in self.dimensions if data[f"proposal_{d.key}"]},
        )
