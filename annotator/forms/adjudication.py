"""Forms of the adjudication page: record a decision, send an issue back, filter the queue."""

from django import forms

from annotator.models import Resolution
from annotator.selectors.resolutions import QUEUE_STATUSES, QueueFilters
from core.numbers import ascii_int


class ResolutionForm(forms.Form):
    """`dim_<key>` holds the chosen category ids per dimension (or "p<annotation id>": that rater's proposal); the
    service checks them against the taxonomy and the raters' annotations."""

    version = forms.IntegerField(min_value=1)
    excluded = forms.BooleanField(required=False)
    method = forms.ChoiceField(
        choices=[(m.value, m.label) for m in (Resolution.Method.ADJUDICATED, Resolution.Method.NEGOTIATED)]
    )
    reason = forms.ChoiceField(choices=Resolution.Reason.choices, required=False)
    note = forms.CharField(required=False, widget=forms.Textarea, max_length=5000)

    def __init__(self, *args, dimensions, **kwargs):
        super().__init__(*args, **kwargs)
        self.dimensions = list(dimensions)

    def clean(self):
        data = super().clean()
        values: dict[str, list[int]] = {}
        proposals: dict[str, int] = {}
        for dimension in self.dimensions:
            # A dimension not sent keeps its current value; the page always sends every dimension it shows.
            if f"dim_{dimension.key}" not in self.data:
                continue
            raw = [v for v in self.data.getlist(f"dim_{dimension.key}") if v != ""]
            # "p<annotation id>": the proposal that rater made in this dimension.
            chosen = [v[1:] for v in raw if v.startswith("p")]
            raw = [v for v in raw if not v.startswith("p")]
            numbers, chosen = [ascii_int(v) for v in raw], [ascii_int(v) for v in chosen]
            if None in numbers or None in chosen or len(chosen) > 1:
                raise forms.ValidationError("A category choice could not be read; reload the page.")
            values[dimension.key] = numbers
            if chosen:
                proposals[dimension.key] = chosen[0]
        data["values"] = values
        data["proposals"] = proposals
        return data


class SendBackForm(forms.Form):
    version = forms.IntegerField(min_value=1)
    note = forms.CharField(max_length=5000, widget=forms.Textarea)


class AnonymousForm(forms.Form):
    anonymous = forms.BooleanField(required=False)


class QueueFilterForm(forms.Form):
    status = forms.ChoiceField(choices=[(key, key) for key in QUEUE_STATUSES], required=False)
    dimension = forms.SlugField(required=False)
    category = forms.IntegerField(required=False, min_value=1)
    pair = forms.RegexField(regex=r"^\d+-\d+$", required=False)
    round = forms.IntegerField(required=False, min_value=1)
    reason = forms.ChoiceField(choices=Resolution.Reason.choices, required=False)

    def filters(self) -> QueueFilters:
        """The filters as read; an unreadable value is ignored rather than failing the page."""
        self.is_valid()  # cleaned_data keeps the fields that were valid
        data = self.cleaned_data
        pair = None
        if data.get("pair"):
            first, second = (int(part) for part in data["pair"].split("-"))
            pair = (first, second)
        return QueueFilters(
            status=data.get("status") or "pending",
            dimension=data.get("dimension") or "",
            category=data.get("category"),
            pair=pair,
            round=data.get("round"),
            reason=data.get("reason") or "",
        )
