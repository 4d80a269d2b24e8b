"""The agreement page of a study, the issues behind one confusion-matrix cell, and leaving the pilot."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from annotator.models import Study
from annotator.permissions import can_manage_study
from core.errors import DomainError
from core.numbers import ascii_int

# The agreement selectors and services are imported inside the views: they bring numpy, scipy and statsmodels,
# which a web worker that serves only raters never needs in memory.

CELL_ISSUES_SHOWN = 200


def _filters(request: HttpRequest, aliases: dict[int, str] | None = None) -> dict:
    """round, pair and level from the query string; a malformed value is a DomainError naming it."""
    from annotator.services.agreement import parse_pair

    def number(name: str) -> int | None:
        text = request.GET.get(name, "").strip()
        if not text:
            return None
        number = ascii_int(text)
        if number is None:
            raise DomainError(f"'{name}' must be a whole number; got '{text[:40]}'.", field=name)
        return number

    return {
        "round_number": number("round"),
        "pair": parse_pair(request.GET.get("pair", "").strip(), aliases),
        "level": number("level"),
    }


def _query(filters: dict, aliases: dict[int, str] | None = None, **extra) -> str:
    pair = filters["pair"]
    names = [aliases.get(p, "R?") for p in pair] if pair and aliases else pair
    params = {
        "round": filters["round_number"],
        "pair": f"{names[0]}-{names[1]}" if pair else None,
        "level": filters["level"],
        **extra,
    }
    return urlencode({k: v for k, v in params.items() if v is not None})


@login_required
@require_GET
def agreement_page(request: HttpRequest, pk: int) -> HttpResponse:
    from annotator.selectors.agreement import (
        FULL,
        agreement_study_for_user,
        labels_version,
        phase_changes,
        rater_aliases,
    )
    from annotator.services.agreement import agreement_gate

    try:
        study, access = agreement_study_for_user(user=request.user, pk=pk)
    except PermissionDenied as exc:
        # Say why, and when it changes: a rater of a blind study is told, not just refused.
        return render(request, "annotator/agreement/hidden.html", {"message": str(exc), "pk": pk}, status=403)
    aliases = rater_aliases(user=request.user, study=study)
    try:
        filters = _filters(request, aliases)
        version = labels_version(study=study)
        html = _report_html(request, study, access, version, filters, aliases)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:study_agreement", pk=study.pk)
    full = access == FULL
    context = {
        "study": study,
        "report_html": html,
        "full": full,
        "is_manager": can_manage_study(request.user, study),
        "gate": agreement_gate(study=study, version=version) if full and study.phase == Study.Phase.PILOT else None,
        "phase_changes": phase_changes(study=study) if full else [],
    }
    return render(request, "annotator/agreement/page.html", context)


def _report_html(
    request: HttpRequest, study: Study, access: str, version: str, filters: dict, aliases: dict[int, str] | None
) -> str:
    """The report part of the page, rendered once per labels version, filters and access level.

    Rendering thousands of heatmap cells costs more than computing them again from the cache, so the
    HTML is cached next to the report (it holds no per-user data: no forms, no CSRF token).
    """
    from annotator.selectors.agreement import FULL
    from annotator.services.agreement import agreement_report, report_cache_key, report_with_aliases
    from annotator.services.agreement.chart import trend_chart
    from annotator.services.agreement.report import CACHE_SECONDS

    bootstrap = request.GET.get("bootstrap", "") == "1"
    names = "aliases" if aliases is not None else "names"
    key = f"{report_cache_key(study=study, version=version, **filters)}:html:{access}:{names}:{bootstrap}"
    key += f":{study.agreement_threshold}"
    html = cache.get(key)
    if html is None:
        report = agreement_report(study=study, version=version, bootstrap=bootstrap, **filters)
        report = report_with_aliases(report, aliases)
        depth = max((d["depth"] for d in report["dimensions"]), default=1)
        context = {
            "study": study,
            "report": report,
            "full": access == FULL,
            "chart": trend_chart(report["dimensions"], float(study.agreement_threshold)),
            "levels": range(1, depth + 1),
            "selected": {
                "round": filters["round_number"],
                "pair": report["filters"]["pair"] or "",
                "level": filters["level"],
            },
            "query": _query(filters, aliases),
            "bootstrap": bootstrap,
            "threshold": float(study.agreement_threshold),
        }
        html = render_to_string("annotator/agreement/_report.html", context, request=request)
        cache.set(key, html, CACHE_SECONDS)
    return mark_safe(html)  # noqa: S308 -- our own template's output, escaped when it was rendered


@login_required
@require_GET
def agreement_cell_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The issues both raters put in one cell of a confusion matrix (the page's script shows it inline)."""
    from annotator.selectors.agreement import FULL, agreement_study_for_user, cell_issues, rater_aliases
    from annotator.services.agreement import agreement_cell

    study, access = agreement_study_for_user(user=request.user, pk=pk)
    if access != FULL:
        raise PermissionDenied("Only the study's owner, adjudicators and staff see which issues fall in a cell.")
    aliases = rater_aliases(user=request.user, study=study)
    try:
        filters = _filters(request, aliases)
        row, col = ascii_int(request.GET.get("row")), ascii_int(request.GET.get("col"))
        if row is None or col is None:
            raise ValueError("not a cell")
        part, ids = agreement_cell(study=study, dimension=request.GET.get("dimension", ""), row=row, col=col, **filters)
    except (ValueError, DomainError) as exc:
        raise Http404(getattr(exc, "message", "That cell is not in the confusion matrix.")) from None
    categories = part["confusion"]["categories"]
    context = {
        "study": study,
        "dimension": part,
        "first": categories[row],
        "second": categories[col],
        "issues": cell_issues(study=study, study_issue_ids=ids[:CELL_ISSUES_SHOWN]),
        "total": len(ids),
        "back": reverse("annotator:study_agreement", args=[study.pk]) + "?" + _query(filters, aliases),
    }
    template = "annotator/agreement/_cell.html" if request.GET.get("partial") else "annotator/agreement/cell.html"
    return render(request, template, context)


@login_required
@require_POST
def agreement_leave_pilot(request: HttpRequest, pk: int) -> HttpResponse:
    from annotator.selectors.agreement import agreement_study_for_user
    from annotator.services.agreement import study_leave_pilot

    study, _ = agreement_study_for_user(user=request.user, pk=pk)
    if not can_manage_study(request.user, study):
        raise PermissionDenied("Only the study's owner can end its pilot.")
    try:
        change = study_leave_pilot(
            study=study, actor=request.user, override_reason=request.POST.get("override_reason", "")
        )
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        if change.overridden:
            messages.warning(request, "The study left its pilot below the agreement threshold; your reason is kept.")
        else:
            messages.success(request, "Agreement reached the threshold on every dimension: the study is labelling.")
    return redirect("annotator:study_agreement", pk=study.pk)


urlpatterns = [
    path("studies/<id:pk>/agreement/", agreement_page, name="study_agreement"),
    path("studies/<id:pk>/agreement/cell/", agreement_cell_page, name="study_agreement_cell"),
    path("studies/<id:pk>/agreement/leave-pilot/", agreement_leave_pilot, name="study_leave_pilot"),
]
