"""The history of one study issue: every change of its annotations and resolution (read-only)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

from annotator.selectors.resolutions import issue_history, study_get_for_adjudication, study_issue_get


@login_required
@require_GET
def study_issue_history(request: HttpRequest, pk: int, study_issue_pk: int) -> HttpResponse:
    # Owners, adjudicators and staff only: a rater must never see another rater's labels through history.
    study = study_get_for_adjudication(user=request.user, pk=pk)
    study_issue = study_issue_get(study=study, pk=study_issue_pk)
    return render(
        request,
        "annotator/adjudication/history.html",
        {
            "study": study,
            "study_issue": study_issue,
            "issue": study_issue.issue,
            "entries": issue_history(study_issue=study_issue, viewer=request.user),
        },
    )


urlpatterns = [
    path("studies/<id:pk>/issues/<id:study_issue_pk>/history/", study_issue_history, name="study_issue_history"),
]
