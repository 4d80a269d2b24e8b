"""Query-string filters of the API's lists (django-filter), documented in the schema from these classes."""

from datetime import UTC, datetime

from django import forms
from django.db.models import QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.drainage import get_override, set_override
from drf_spectacular.utils import extend_schema_field

from annotator.models import Annotation, Assignment, ImportJob, Issue
from annotator.selectors.imports import import_job_visible
from annotator.selectors.issues import IssueFilters, issues_filtered

MAX_ID = 2**63 - 1  # the largest id a database integer column holds


def _described(declared: filters.Filter) -> None:
    """The filter's help text in its parameter's schema: drf-spectacular leaves out the help text of a filter
    whose schema is given (extend_schema_field), so it is written into that schema, per filter."""
    if help_text := declared.extra.get("help_text"):
        set_override(declared, "field", {**get_override(declared, "field"), "description": help_text})


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID, "format": "int64"})
class IdFilter(filters.NumberFilter):
    """A whole-number id; out-of-range values are a 400, not a database overflow."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)
        _described(self)


@extend_schema_field({"type": "string", "minLength": 1})
class TextFilter(filters.CharFilter):
    """Free text; present means not empty (leave the parameter out for no filter)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _described(self)


class StrictFilterSet(filters.FilterSet):
    """Refuses what the schema does not allow, where django-filter would quietly drop the filter: a parameter
    sent empty, or a boolean other than true / false."""

    def is_valid(self) -> bool:
        valid = super().is_valid()
        for name, declared in self.filters.items():
            value = self.data.get(name)
            if value is None:
                continue
            if value == "":
                self.form.add_error(name, "Leave the parameter out for no filter; it may not be empty.")
            elif isinstance(declared, filters.BooleanFilter) and value not in {"true", "false"}:
                self.form.add_error(name, f"Either true or false; got '{value[:40]}'.")
        return valid and not self.form.errors


class IssueFilterSet(StrictFilterSet):
    """Issue filters; search and label matching are the issue list page's own (annotator.selectors.issues)."""

    repository = IdFilter(help_text="Repository id (see /api/v1/repositories/).")
    state = filters.ChoiceFilter(choices=[c for c in Issue.State.choices if c[0]])
    kind = filters.ChoiceFilter(choices=Issue.Kind.choices)
    label = TextFilter(help_text="One label of the issue on its host, matched exactly, e.g. `bug`.")
    created_after = filters.IsoDateTimeFilter(
        field_name="created", lookup_expr="gte", help_text="Created at or after this time (ISO 8601)."
    )
    created_before = filters.IsoDateTimeFilter(
        field_name="created", lookup_expr="lt", help_text="Created before this time (ISO 8601)."
    )
    search = TextFilter(
        help_text='Words that must all appear in the title or body; "a phrase" in quotes; #123 for issue number 123.'
    )

    class Meta:
        model = Issue
        fields: list[str] = []

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        data = self.form.cleaned_data
        repository, job = data.get("repository"), data.get("import")
        if job is not None and import_job_visible(user=self.request.user, pk=int(job)) is None:
            return queryset.none()  # unknown, another team's, or the caller may not see imports: nothing listed
        selected = issues_filtered(
            filters=IssueFilters(
                q=(data.get("search") or "")[:500],
                repository=int(repository) if repository is not None else None,
                state=data.get("state") or "",
                kind=data.get("kind") or "",
                label=data.get("label") or "",
                import_job=int(job) if job is not None else None,
            )
        )
        if data.get("created_after"):
            selected = selected.filter(created__gte=_utc(data["created_after"]))
        if data.get("created_before"):
            selected = selected.filter(created__lt=_utc(data["created_before"]))
        return selected


# "import" is a Python keyword, so it cannot be declared in the class body like the others.
IssueFilterSet.base_filters["import"] = IdFilter(
    field_name="import",
    help_text="Import job id (see /api/v1/import-jobs/): the issues that import wrote or found unchanged. "
    "An import you may not see lists no issues.",
)


def _utc(moment: datetime) -> datetime:
    """The time in UTC: PostgreSQL refuses offsets beyond 16 hours, ISO 8601 allows them up to 24. A time
    that leaves the calendar in UTC (year 0 or 10000) becomes its first or last moment: the same filter."""
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        return (datetime.min if moment.year == 1 else datetime.max).replace(tzinfo=UTC)


class MyAnnotationFilterSet(StrictFilterSet):
    study = IdFilter(field_name="assignment__study_issue__study_id", help_text="Only this study.")
    status = filters.ChoiceFilter(
        field_name="assignment__status", choices=Assignment.Status.choices, help_text="The assignment's status."
    )
    submitted = filters.BooleanFilter(
        field_name="submitted_at", lookup_expr="isnull", exclude=True, help_text="true: submitted; false: not yet."
    )

    class Meta:
        model = Annotation
        fields: list[str] = []


class ImportJobFilterSet(StrictFilterSet):
    kind = filters.ChoiceFilter(choices=ImportJob.Kind.choices)
    status = filters.ChoiceFilter(choices=ImportJob.Status.choices)

    class Meta:
        model = ImportJob
        fields: list[str] = []
