"""Component pages: each repository's path patterns -> components, edited in order, with the unmapped paths."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotator.models import Repository
from annotator.selectors.components import component_rules_of
from annotator.selectors.fixes import repository_unmapped_paths
from annotator.services.components import component_rule_add, component_rule_move, component_rule_remove
from core.errors import DomainError
from core.permissions import can_edit_components

UNMAPPED_SHOWN = 50


class ComponentRuleForm(forms.Form):
    pattern = forms.CharField(
        max_length=500,
        help_text="A path from the repository root: * within a folder, ** across folders; a folder covers its files",
        widget=forms.TextInput(attrs={"placeholder": "deepspeed/runtime/zero/stage3.py"}),
    )
    component = forms.CharField(max_length=200, widget=forms.TextInput(attrs={"placeholder": "ZeRO-3"}))

    def mark_invalid(self) -> None:
        """Each field with an error says so to assistive technology and is outlined: aria-invalid, and the error
        as its description (the template gives the error the id ``<field id>-error``)."""
        for name in self.errors:
            if name in self.fields:
                attrs = self.fields[name].widget.attrs
                attrs.update({"aria-invalid": "true", "aria-describedby": f"{self[name].auto_id}-error"})


def _require_editor(request: HttpRequest) -> None:
    if not can_edit_components(request.user):
        raise PermissionDenied("Only study owners and taxonomy maintainers keep component rules.")


@login_required
@require_GET
def component_repositories(request: HttpRequest) -> HttpResponse:
    _require_editor(request)
    repositories = Repository.objects.annotate(rules=Count("component_rules")).order_by("owner", "name")
    return render(request, "annotator/components/list.html", {"repositories": repositories})


@login_required
@require_http_methods(["GET", "POST"])
def repository_components(request: HttpRequest, pk: int) -> HttpResponse:
    _require_editor(request)
    repository = get_object_or_404(Repository, pk=pk)
    form = ComponentRuleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            rule = component_rule_add(repository=repository, **form.cleaned_data)
        except DomainError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, f"{rule.pattern} → {rule.component} added.")
            return redirect("annotator:repository_components", pk=repository.pk)
    form.mark_invalid()
    context = {
        "repository": repository,
        "rules": component_rules_of(repository=repository),
        "form": form,
        "unmapped": repository_unmapped_paths(repository, limit=UNMAPPED_SHOWN),
        "unmapped_shown": UNMAPPED_SHOWN,
    }
    return render(request, "annotator/components/detail.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def repository_component_change(request: HttpRequest, pk: int, rule_id: int) -> HttpResponse:
    """Remove a rule, or move it one place up or down (the button pressed says which)."""
    _require_editor(request)
    repository = get_object_or_404(Repository, pk=pk)
    action = request.POST.get("action")
    try:
        if action == "remove":
            component_rule_remove(repository=repository, rule_id=rule_id)
        elif action in ("up", "down"):
            component_rule_move(repository=repository, rule_id=rule_id, offset=-1 if action == "up" else 1)
        else:
            messages.error(request, "Choose remove, up or down.")
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("annotator:repository_components", pk=repository.pk)


urlpatterns = [
    path("imports/components/", component_repositories, name="component_repositories"),
    path("imports/repositories/<id:pk>/components/", repository_components, name="repository_components"),
    path(
        "imports/repositories/<id:pk>/components/<id:rule_id>/",
        repository_component_change,
        name="repository_component_change",
    ),
]
