"""Forms of the spreadsheet import wizard: upload, map columns, review labels."""

from django import forms

from taxonomy.models import Taxonomy

ALLOWED_SUFFIXES = (".xlsx", ".csv")


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (one workbook, or one CSV file per rater)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        files = [single(item, initial) for item in data] if isinstance(data, list | tuple) else [single(data, initial)]
        for upload in files:
            if not upload.name.lower().endswith(ALLOWED_SUFFIXES):
                raise forms.ValidationError(f"{upload.name}: only .xlsx and .csv files can be imported.")
        return files


class SheetsUploadForm(forms.Form):
    files = MultipleFileField(
        label="Spreadsheets", help_text="One .xlsx workbook with a sheet per rater, or one .csv file per rater."
    )
    study = forms.CharField(
        label="Study",
        max_length=200,
        help_text="The study to import into. A new name creates the study; an existing one gets a new round.",
    )
    taxonomy = forms.ModelChoiceField(
        label="Taxonomy",
        queryset=Taxonomy.objects.order_by("name"),
        required=False,
        to_field_name="slug",
        empty_label="(build a new taxonomy from the labels)",
        help_text="Labels are matched against its categories' names, codes and aliases.",
    )


class SheetsColumnsForm(forms.Form):
    """Which sheets are raters, which column identifies an issue, and which column holds each dimension."""

    def __init__(self, *args, sheet_names: list[str], headers: list[str], dimensions: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        sheet_choices = [(name, name) for name in sheet_names]
        header_choices = [(h, h) for h in headers]
        self.fields["raters"] = forms.MultipleChoiceField(
            label="Rater sheets",
            choices=sheet_choices,
            widget=forms.CheckboxSelectMultiple,
            help_text="One sheet (or CSV file) per rater.",
        )
        self.fields["final"] = forms.ChoiceField(
            label="Final sheet",
            choices=[("", "(none)"), *sheet_choices],
            required=False,
            help_text="The labels agreed after discussion; they become the resolutions.",
        )
        self.fields["key"] = forms.ChoiceField(
            label="Issue link column", choices=header_choices, help_text="A link to the issue in every row."
        )
        self.fields["missing"] = forms.CharField(
            label="'Not labelled' markers",
            initial="PENDING",
            required=False,
            help_text="Comma-separated cell texts that mean 'not labelled', like a blank cell.",
        )
        self.dimension_fields = []
        for key, name in dimensions:
            field_name = f"map_{key}"
            self.fields[field_name] = forms.CharField(
                label=name,
                required=False,
                max_length=500,
                help_text="A column, or the columns of a category tree top down: Stage>Type>Leaf Category.",
                widget=forms.TextInput(attrs={"list": "sheet-headers", "data-dimension": key}),
            )
            self.dimension_fields.append((key, field_name))

    def clean(self):
        data = super().clean()
        if data.get("final") and data["final"] in data.get("raters", []):
            self.add_error("final", "The final sheet cannot also be a rater's sheet.")
        if not any(data.get(name, "").strip() for _, name in self.dimension_fields):
            raise forms.ValidationError("Map at least one dimension to a column.")
        return data


class SheetsLabelsForm(forms.Form):
    """One checkbox per merge suggestion (ticked: accept), and whether to add unknown labels as categories."""

    def __init__(self, *args, suggestions: list[tuple[str, object]], **kwargs):
        super().__init__(*args, **kwargs)
        self.suggestion_fields = []
        for i, (table_key, suggestion) in enumerate(suggestions):
            name = f"accept_{i}"
            self.fields[name] = forms.BooleanField(label=f"{table_key}: {suggestion}", required=False, initial=True)
            self.suggestion_fields.append((name, table_key, suggestion))
        self.fields["add_unknown_labels"] = forms.BooleanField(
            label="Add labels that fit no category to a draft version of the taxonomy",
            required=False,
        )

    def accepted(self) -> list[tuple[str, object]]:
        return [(key, s) for name, key, s in self.suggestion_fields if self.cleaned_data.get(name)]
