"""Disagreements in the Django admin: staff review the raters' labels side by side and resolve them.

Everything is written through the resolution service, so the admin keeps the same rules, locks and
history as the adjudication pages. Nothing here adds or deletes; history stays read-only.
"""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotator.models import Disagreement, Resolution
from annotator.selectors.resolutions import adjudication_page, study_dimensions
from annotator.services.resolutions import rater_labels, resolution_record
from core.errors import DomainError


class DimensionFilter(admin.SimpleListFilter):
    title = "dimension in dispute"
    parameter_name = "dimension"

    def lookups(self, request, model_admin):
        from taxonomy.models import Dimension

        keys = Dimension.objects.filter(studies__isnull=False).values_list("key", flat=True).distinct()
        return [(key, key) for key in sorted({*keys, Resolution.EXCLUDED_KEY})]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(resolution__disagreement_keys__contains=f",{self.value()},")
        return queryset


class ResolvedFilter(admin.SimpleListFilter):
    title = "resolved"
    parameter_name = "resolved"

    def lookups(self, request, model_admin):
        return [("yes", "Resolved"), ("no", "Not resolved")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(resolution__status=Resolution.Status.RESOLVED)
        if self.value() == "no":
            return queryset.exclude(resolution__status=Resolution.Status.RESOLVED)
        return queryset


class AdminResolutionForm(forms.Form):
    version = forms.IntegerField(widget=forms.HiddenInput)
    excluded = forms.BooleanField(required=False, label="Exclude this issue")
    method = forms.ChoiceField(
        choices=[(m.value, m.label) for m in (Resolution.Method.ADJUDICATED, Resolution.Method.NEGOTIATED)]
    )
    reason = forms.ChoiceField(choices=Resolution.Reason.choices, required=False)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, rows, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = rows
        for row in rows:
            choices = [(o.category.pk, o.path) for o in row.options]
            if row.dimension.multi_valued:
                field = forms.TypedMultipleChoiceField(choices=choices, coerce=int, required=False)
            else:
                field = forms.TypedChoiceField(
                    choices=[("", "—"), *choices], coerce=int, empty_value=None, required=False
                )
            field.label = f"{row.dimension.name}{' (in dispute)' if row.differs else ''}"
            field.initial = row.final if row.dimension.multi_valued else (row.final[0] if row.final else None)
            self.fields[f"dim_{row.dimension.key}"] = field

    def values(self) -> dict[str, list[int]]:
        values = {}
        for row in self.rows:
            raw = self.cleaned_data.get(f"dim_{row.dimension.key}")
            values[row.dimension.key] = list(raw) if isinstance(raw, list) else ([raw] if raw else [])
        return values


def _cell(categories, proposal: str) -> str:
    """One rater's labels of a dimension: the categories with their codes, and a proposal if any."""
    if categories is None:
        return "not recorded"
    shown = format_html_join(", ", "{} ({})", ((c.name, c.code) for c in categories))
    if proposal:
        shown = format_html("{}{}proposed: {}", shown, "; " if shown else "", proposal)
    return shown or "—"


def _accept(modeladmin, request: HttpRequest, queryset: QuerySet, rater: int) -> None:
    done, failed = 0, []
    for disagreement in queryset.select_related("study", "resolution"):
        resolution = getattr(disagreement, "resolution", None)
        annotations = list(
            disagreement.assignments.filter(annotation__submitted_at__isnull=False)
            .select_related("annotation")
            .order_by("pk")
        )
        if resolution is None or len(annotations) < rater:
            failed.append(f"#{disagreement.position}: not every rater has submitted")
            continue
        annotation = annotations[rater - 1].annotation
        labels = rater_labels(annotation)
        # Where the rater proposed a category instead of choosing one, their proposal is the final label.
        proposed = {key: annotation.pk for key in labels.proposals if not labels.values.get(key)}
        try:
            resolution_record(
                study_issue=disagreement,
                actor=request.user,
                values={} if labels.excluded else labels.values,
                proposals={} if labels.excluded else proposed,
                excluded=labels.excluded,
                method=Resolution.Method.ADJUDICATED,
                reason=resolution.disagreement_reason or Resolution.Reason.OTHER,
                note=resolution.note or f"Accepted rater {rater}'s labels in the admin.",
                expected_version=resolution.version,
            )
        except DomainError as exc:
            failed.append(f"#{disagreement.position}: {exc.message}")
        else:
            done += 1
    if done:
        modeladmin.message_user(request, f"Resolved {done} issue(s) with rater {rater}'s labels.", messages.SUCCESS)
    for message in failed:
        modeladmin.message_user(request, message, messages.ERROR)


@admin.action(description="Accept rater 1's labels")
def accept_rater_1(modeladmin, request, queryset):
    _accept(modeladmin, request, queryset, 1)


@admin.action(description="Accept rater 2's labels")
def accept_rater_2(modeladmin, request, queryset):
    _accept(modeladmin, request, queryset, 2)


@admin.register(Disagreement)
class DisagreementAdmin(admin.ModelAdmin):
    list_display = ["position", "issue_title", "study", "round_number", "in_dispute", "status", "method", "reason"]
    list_filter = [
        "study",
        DimensionFilter,
        ResolvedFilter,
        "resolution__method",
        "resolution__disagreement_reason",
    ]
    list_select_related = ["study", "issue", "round", "resolution"]
    search_fields = ["issue__title"]
    actions = [accept_rater_1, accept_rater_2]
    ordering = ["-resolution__disagreement_count", "study", "position"]
    change_form_template = "admin/annotator/disagreement/change_form.html"

    # Staff only (the admin site already turns everyone else away); no adding or deleting here.
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff

    def has_change_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return Disagreement.objects.with_disagreements().select_related("study", "issue", "round", "resolution")

    @admin.display(description="issue", ordering="issue__title")
    def issue_title(self, obj: Disagreement) -> str:
        return obj.issue.title[:90]

    @admin.display(description="round", ordering="round__number")
    def round_number(self, obj: Disagreement) -> int:
        return obj.round.number

    @admin.display(description="disagreed on")
    def in_dispute(self, obj: Disagreement) -> str:
        return ", ".join(obj.resolution.disagreements)

    @admin.display(description="status", ordering="resolution__status")
    def status(self, obj: Disagreement) -> str:
        return obj.resolution.get_status_display()

    @admin.display(description="method", ordering="resolution__method")
    def method(self, obj: Disagreement) -> str:
        return obj.resolution.get_method_display()

    @admin.display(description="reason", ordering="resolution__disagreement_reason")
    def reason(self, obj: Disagreement) -> str:
        return obj.resolution.get_disagreement_reason_display()

    def change_view(self, request: HttpRequest, object_id, form_url="", extra_context=None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        disagreement = get_object_or_404(self.get_queryset(request), pk=object_id)
        page = adjudication_page(study_issue=disagreement, viewer=request.user)
        resolution = page["resolution"]
        form = AdminResolutionForm(
            request.POST or None,
            rows=page["rows"],
            initial={
                "version": resolution.version,
                "excluded": resolution.excluded,
                "reason": resolution.disagreement_reason,
                "note": resolution.note,
            },
        )
        if request.method == "POST" and form.is_valid():
            try:
                resolution_record(
                    study_issue=disagreement,
                    actor=request.user,
                    values={} if form.cleaned_data["excluded"] else form.values(),
                    excluded=form.cleaned_data["excluded"],
                    method=form.cleaned_data["method"],
                    reason=form.cleaned_data["reason"],
                    note=form.cleaned_data["note"],
                    expected_version=form.cleaned_data["version"],
                )
            except DomainError as exc:
                form.add_error(None, exc.message)
            else:
                self.message_user(request, f"Resolved #{disagreement.position}.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:annotator_disagreement_changelist"))
        side_by_side = [
            (
                row.dimension.name,
                row.differs,
                [_cell(cats, proposal) for cats, proposal in row.cells],
                row.method if row.differs else "",
                [_cell(cats, proposal) for cats, proposal in row.independent_cells]
                if row.differs and row.revised
                else [],
            )
            for row in page["rows"]
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Disagreement: {disagreement}",
            "original": disagreement,
            "disagreement": disagreement,
            "resolution": resolution,
            "raters": [name for name, _ in page["rater_columns"]],
            "annotations": page["annotations"],
            "side_by_side": side_by_side,
            "excluded_row": [
                format_html("{}", a.get_excluded_reason_display() if a.excluded else "labelled")
                for a in page["annotations"]
            ],
            "form": form,
            "has_view_permission": True,
            "dimensions": study_dimensions(study=disagreement.study),
            **(extra_context or {}),
        }
        return TemplateResponse(request, self.change_form_template, context)
