"""Partial overlap: a reliability subset goes to every rater, the rest to one rater each; single-coded issues
are final on submit; agreement is measured on the subset only; an all-single-coded study can be published."""

from collections import Counter

import pytest

from annotator.models import Assignment, RaterProgress, Release, Resolution, StudyIssue
from annotator.selectors.agreement import subset_text
from annotator.selectors.studies import study_dashboard
from annotator.services.agreement import agreement_report
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.assignments import plan_assignments
from annotator.services.publication import study_publish
from annotator.services.sampling import Overlap, reliability_subset, study_round_draw
from core.errors import DomainError
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import draw as draw_round
from tests.annotator.studies.factories import make_study


@pytest.fixture(autouse=True)
def _fresh_reports(empty_cache):
    """Agreement reports are cached by labels version: each test starts with none."""


def test_twenty_percent_of_305_is_61_issues_chosen_by_the_seed():
    subset = reliability_subset(305, Overlap("percent", 20), seed=9)
    assert sum(subset) == 61
    assert subset == reliability_subset(305, Overlap("percent", 20), seed=9)
    assert subset != reliability_subset(305, Overlap("percent", 20), seed=10)
    assert sum(reliability_subset(10, Overlap("count", 3), seed=1)) == 3
    assert sum(reliability_subset(10, Overlap("count", 30), seed=1)) == 10
    assert all(reliability_subset(4, Overlap(), seed=1))


def test_single_coded_items_go_to_one_rater_each_and_even_out_the_workload():
    single = [False, False] + [True] * 10
    plan = plan_assignments(12, [1, 2, 3], 2, single=single)
    assert [len(raters) for raters in plan] == [2, 2] + [1] * 10
    load = Counter(rater for raters in plan for rater in raters)
    assert sum(load.values()) == 14 and max(load.values()) - min(load.values()) <= 1


def _study(users, **options):
    return make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], **options)


def _draw(study, users, *, size: int, overlap: Overlap):
    from annotator.services.sampling import SampleFilters

    return study_round_draw(
        study=study, actor=users["owner"], filters=SampleFilters(), size=size, seed=4, overlap=overlap
    )


def _values(study, symptom: int = 0, cause: int = 0) -> AnnotationInput:
    cats = study.taxonomy_fixture["cats"]
    return AnnotationInput(
        values={"symptom": [cats["symptom"][symptom].pk], "root_cause": [cats["root_cause"][cause].pk]}
    )


def _submit(assignment: Assignment, actor, data: AnnotationInput):
    annotation = assignment.annotation
    annotation.refresh_from_db()
    return annotation_submit(annotation=annotation, actor=actor, data=data, expected_version=annotation.version)


@pytest.mark.django_db
def test_a_round_with_twenty_percent_overlap_double_codes_the_subset_and_balances_the_rest(users):
    IssueFactory.create_batch(10)
    study = _study(users)
    study_round = _draw(study, users, size=10, overlap=Overlap("percent", 20))
    assert study_round.overlap == {"mode": "percent", "value": 20} and study_round.double_coded == 2
    counts = {si.pk: si.assignments.count() for si in StudyIssue.objects.filter(study=study)}
    double = set(StudyIssue.objects.filter(study=study, double_coded=True).values_list("pk", flat=True))
    assert len(double) == 2 and all(counts[pk] == 2 for pk in double)
    assert all(n == 1 for pk, n in counts.items() if pk not in double)
    progress = {p.rater_id: p.total for p in RaterProgress.objects.filter(study=study)}
    assert progress == {users["rater_a"].pk: 6, users["rater_b"].pk: 6}


@pytest.mark.django_db
def test_a_single_coded_issue_is_final_on_submit_a_double_coded_one_waits_for_its_second_rater(users):
    IssueFactory.create_batch(6)
    study = _study(users)
    _draw(study, users, size=6, overlap=Overlap("count", 2))
    single = Assignment.objects.filter(study_issue__study=study, study_issue__double_coded=False).first()
    annotation = _submit(single, single.rater, _values(study, 1, 2))
    assert annotation.frozen
    resolution = Resolution.objects.get(study_issue=single.study_issue)
    assert (resolution.status, resolution.method) == (Resolution.Status.RESOLVED, Resolution.Method.SINGLE_CODED)
    assert resolution.methods == dict.fromkeys(["symptom", "root_cause", "stage"], "single_coded")
    cats = study.taxonomy_fixture["cats"]
    finals = set(resolution.final_values.values_list("category_id", flat=True))
    assert finals == {cats["symptom"][1].pk, cats["root_cause"][2].pk}

    double = Assignment.objects.filter(study_issue__study=study, study_issue__double_coded=True).first()
    assert not _submit(double, double.rater, _values(study)).frozen
    assert not Resolution.objects.filter(study_issue=double.study_issue).exists()


@pytest.mark.django_db
def test_agreement_is_computed_on_the_double_coded_subset_only_and_says_so(users):
    IssueFactory.create_batch(10)
    study = _study(users)
    _draw(study, users, size=10, overlap=Overlap("count", 3))
    for assignment in Assignment.objects.filter(study_issue__study=study).select_related("rater"):
        # Raters disagree on root cause on the subset; single-coded issues would all "agree" with themselves.
        cause = 0 if assignment.rater == users["rater_a"] else 1
        _submit(assignment, assignment.rater, _values(study, 0, cause))
    report = agreement_report(study=study)
    assert report["subset"] == {"issues": 10, "double_coded": 3, "partial": True, "text": subset_text(report["subset"])}
    assert subset_text(report["subset"]) == "computed on 3 double-coded issues of 10"
    by_key = {d["key"]: d for d in report["dimensions"]}
    assert by_key["root_cause"]["summary"]["n"] == 3
    assert by_key["root_cause"]["summary"]["percent"] == 0
    assert Resolution.objects.filter(study_issue__study=study, method="single_coded").count() == 7
    assert Resolution.objects.filter(study_issue__study=study, status="pending").count() == 3


@pytest.mark.django_db
def test_a_study_with_one_rater_per_issue_is_all_single_coded_and_can_be_published(users):
    IssueFactory.create_batch(5)
    study = _study(users, raters_per_issue=1)
    study_round = draw_round(study, actor=users["owner"], size=5)
    assert study_round.double_coded == 0
    assert not StudyIssue.objects.filter(study=study, double_coded=True).exists()
    for assignment in Assignment.objects.filter(study_issue__study=study).select_related("rater"):
        _submit(assignment, assignment.rater, _values(study))
    dashboard = study_dashboard(study=study)
    assert (dashboard["issues_total"], dashboard["issues_complete"]) == (5, 5)
    assert agreement_report(study=study)["subset"]["text"] == "computed on 0 double-coded issues of 5"
    release = study_publish(study=study, actor=users["owner"])
    assert release.number == 1 and Release.objects.filter(study=study).count() == 1
    readme = bytes(release.files.get(name="README.md").content).decode()
    assert "Partial overlap: 0 of 5 issues were double-coded" in readme
    study.refresh_from_db()
    assert study.phase == "published"


@pytest.mark.django_db
def test_progress_counts_an_issue_complete_when_all_of_its_own_raters_submitted(users):
    IssueFactory.create_batch(4)
    study = _study(users)
    _draw(study, users, size=4, overlap=Overlap("count", 1))
    double = StudyIssue.objects.get(study=study, double_coded=True)
    first = double.assignments.first()
    _submit(first, first.rater, _values(study))
    assert study_dashboard(study=study)["issues_complete"] == 0
    for assignment in Assignment.objects.filter(study_issue__study=study, study_issue__double_coded=False):
        _submit(assignment, assignment.rater, _values(study))
    assert study_dashboard(study=study)["issues_complete"] == 3
    submitted = {p.rater_id: p.submitted for p in RaterProgress.objects.filter(study=study)}
    assert sum(submitted.values()) == 4


@pytest.mark.django_db
def test_an_impossible_overlap_is_refused_before_anything_is_drawn(users):
    IssueFactory.create_batch(3)
    study = _study(users)
    with pytest.raises(DomainError) as refused:
        _draw(study, users, size=3, overlap=Overlap("percent", 120))
    assert refused.value.field == "overlap_value"
    assert not StudyIssue.objects.filter(study=study).exists()


@pytest.mark.django_db
def test_the_agreement_page_api_and_report_say_what_agreement_is_computed_on(users, client):
    from django.urls import reverse

    from annotator.services.report import study_report

    IssueFactory.create_batch(5)
    study = _study(users)
    _draw(study, users, size=5, overlap=Overlap("count", 2))
    for assignment in Assignment.objects.filter(study_issue__study=study).select_related("rater"):
        _submit(assignment, assignment.rater, _values(study))
    client.force_login(users["owner"])
    page = client.get(reverse("annotator:study_agreement", args=[study.pk]))
    assert page.status_code == 200
    assert "computed on 2 double-coded issues of 5" in page.content.decode()
    body = client.get(reverse("api:study_agreement", args=[study.pk])).json()
    assert body["subset"] == {"issues": 5, "double_coded": 2, "partial": True, "text": subset_text(body["subset"])}
    assert "computed on 2 double-coded issues of 5" in study_report(study=study).table("agreement").note
