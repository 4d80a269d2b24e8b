"""Issue pages: the searchable list and one issue with its comments and fix links."""

from dataclasses import replace
from datetime import date
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import path

from annotator.models import Issue
from annotator.selectors.fixes import issue_fixes
from annotator.selectors.imports import import_job_label
from annotator.selectors.issues import (
    IssueFilters,
    issue_get,
    issue_page_for_user,
    repositories_for_filter,
    text_terms,
)
from annotator.selectors.studies import studies_owned_by
from core.navigation import NAV_SESSION_KEY
from core.numbers import ascii_int

MAX_QUERY_CHARS = 200


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if len(value) == 10 else None
    except ValueError:
        return None


def _id(value: str) -> int | None:
    """A database id in the query string (a positive number a bigint holds, in ASCII digits), or None."""
    number = ascii_int(value)
    return number if number else None


def issue_filters_from_query(params: QueryDict) -> IssueFilters:
    """Filters from the query string; values that cannot be valid are ignored, not errors."""
    state = params.get("state", "")
    kind = params.get("kind", "")
    return IssueFilters(
        q=params.get("q", "").strip()[:MAX_QUERY_CHARS],
        repository=_id(params.get("repository", "")),
        state=state if state in {Issue.State.OPEN, Issue.State.CLOSED} else "",
        kind=kind if kind in Issue.Kind.values else "",
        label=params.get("label", "").strip()[:MAX_QUERY_CHARS],
        created_from=_day(params.get("created_from", "")),
        created_to=_day(params.get("created_to", "")),
        import_job=_id(params.get("import", "")),
    )


def _filter_query(filters: IssueFilters) -> str:
    """The filters as a query string, to carry them across page links."""
    pairs = {
        "q": filters.q,
        "repository": filters.repository or "",
        "state": filters.state,
        "kind": filters.kind,
        "label": filters.label,
        "created_from": filters.created_from.isoformat() if filters.created_from else "",
        "created_to": filters.created_to.isoformat() if filters.created_to else "",
        "import": filters.import_job or "",
    }
    return urlencode({key: value for key, value in pairs.items() if value})


@login_required
def issue_list(request: HttpRequest) -> HttpResponse:
    filters = issue_filters_from_query(request.GET)
    owner = bool(request.session.get(NAV_SESSION_KEY, {}).get("imports"))
    page, job = issue_page_for_user(
        user=request.user, filters=filters, after=request.GET.get("after"), before=request.GET.get("before")
    )
    return render(
        request,
        "annotator/issues/list.html",
        {
            "filters": filters,
            "filter_query": _filter_query(filters),
            "import_job": job,
            "import_label": import_job_label(job) if job else "",
            "without_import_query": _filter_query(replace(filters, import_job=None)),
            "page": page,
            "terms": text_terms(filters.q),
            "repositories": repositories_for_filter(),
            "states": [(Issue.State.OPEN, "Open"), (Issue.State.CLOSED, "Closed")],
            "kinds": Issue.Kind.choices,
            # Owners may add the listed issues to a study they own, or start a study from this search (the
            # site role from the session, as the navigation reads it: the pages behind check it again).
            "owned_studies": studies_owned_by(user=request.user) if owner else [],
            "can_create_study": owner,
        },
    )


@login_required
def issue_detail(request: HttpRequest, pk: int) -> HttpResponse:
    issue = issue_get(pk=pk)
    if issue is None:
        raise Http404("No issue with this id; it may have been removed.")
    fix = issue_fixes([issue.pk]).get(issue.pk)
    return render(request, "annotator/issues/detail.html", {"issue": issue, "fix": fix})


urlpatterns = [
    path("issues/", issue_list, name="issue_list"),
    path("issues/<id:pk>/", issue_detail, name="issue_detail"),
]
