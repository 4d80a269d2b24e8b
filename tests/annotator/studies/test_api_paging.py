"""My assignments page by queue position (keyset), and the fast row output equals the serializer's."""

import re

import pytest
from rest_framework.test import APIClient

from annotator.api.serializers import RaterAssignmentOutputSerializer
from annotator.models import Assignment
from annotator.selectors.labelling import ROW_COLUMNS, assignment_page_for_rater, assignments_for_rater
from annotator.services.annotations import AnnotationInput, annotation_save_draft, annotation_submit
from annotator.services.assignments import assignment_skip
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import draw
from tests.annotator.worlds import build_world, complete_input


@pytest.fixture
def big_world(users):
    return build_world(users, n_issues=7)


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_following_next_walks_the_whole_queue_in_order_once(big_world, users):
    client = _api(users["rater_a"])
    url = f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?limit=3"
    seen, pages = [], 0
    while url:
        data = client.get(url).json()
        assert data["count"] == 7
        seen += [row["position"] for row in data["results"]]
        url, pages = data["next"], pages + 1
    assert pages == 3
    assert seen == [a.study_issue.position for a in big_world.assignments["rater_a"]]


def test_a_page_continues_after_the_position_given(big_world, users):
    third = big_world.assignments["rater_a"][2].study_issue.position
    data = _api(users["rater_a"]).get(f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?after={third}").json()
    assert [row["id"] for row in data["results"]] == [a.pk for a in big_world.assignments["rater_a"][3:]]
    assert data["next"] is None


def test_the_status_filter_pages_and_counts_only_that_status(big_world, users):
    first, second = big_world.assignments["rater_a"][:2]
    annotation_submit(
        annotation=first.annotation, actor=users["rater_a"], data=complete_input(big_world), expected_version=1
    )
    assignment_skip(assignment=second, actor=users["rater_a"], reason="duplicate")
    client = _api(users["rater_a"])
    base = f"/api/v1/studies/{big_world.study.pk}/assignments/mine/"
    submitted = client.get(base + "?status=submitted").json()
    assert (submitted["count"], [row["id"] for row in submitted["results"]]) == (1, [first.pk])
    assigned = client.get(base + "?status=assigned&limit=2").json()
    assert assigned["count"] == 5 and len(assigned["results"]) == 2 and assigned["next"]


@pytest.mark.parametrize(
    ("query", "field"), [("offset=100", "offset"), ("status=finished", "status"), ("limit=500", "limit")]
)
def test_bad_paging_parameters_answer_400_naming_the_field(big_world, users, query, field):
    response = _api(users["rater_a"]).get(f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?{query}")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_a_page_reads_everything_its_rows_show(big_world, users, django_assert_num_queries):
    first, second, third = big_world.assignments["rater_a"][:3]
    annotation_save_draft(
        annotation=first.annotation, actor=users["rater_a"], data=AnnotationInput(note="x"), expected_version=1
    )
    annotation_submit(
        annotation=second.annotation, actor=users["rater_a"], data=complete_input(big_world), expected_version=1
    )
    assignment_skip(assignment=third, actor=users["rater_a"], reason="duplicate")
    rows, _ = assignment_page_for_rater(rater=users["rater_a"], study=big_world.study, limit=10)
    with django_assert_num_queries(0):  # no deferred field left to fetch row by row
        lean = RaterAssignmentOutputSerializer(rows, many=True).data
    # The same rows read whole (every column, the related objects too) answer the same.
    models = list(assignments_for_rater(rater=users["rater_a"], study=big_world.study).annotate(**ROW_COLUMNS))
    assert lean == RaterAssignmentOutputSerializer(models, many=True).data
    assert [row["issue"]["title"] for row in lean] == [model.study_issue.issue.title for model in models]
    assert [row["round"] for row in lean] == [model.study_issue.round.number for model in models]


def test_next_answers_the_same_row_as_the_list(big_world, users):
    client = _api(users["rater_a"])
    Assignment.objects.filter(pk=big_world.a.pk).update(status=Assignment.Status.SUBMITTED)
    upcoming = client.get(f"/api/v1/studies/{big_world.study.pk}/assignments/next/").json()["assignment"]
    listed = client.get(f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?status=assigned&limit=1").json()
    assert upcoming == listed["results"][0]
    assert upcoming["id"] == big_world.assignments["rater_a"][1].pk


def test_a_page_costs_the_same_queries_wherever_it_starts(big_world, users, django_assert_num_queries):
    client = _api(users["rater_a"])
    base = f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?limit=2"
    for query in ("", "&after=2", "&after=5"):
        with django_assert_num_queries(3):  # the study, the page, the count (from the progress counters)
            assert client.get(base + query).status_code == 200


def test_every_rows_page_url_and_dates_are_what_reverse_and_drf_give(big_world, users):
    from django.urls import reverse
    from rest_framework import serializers

    rater = users["rater_a"]
    annotation_save_draft(
        annotation=big_world.assignments["rater_a"][0].annotation,
        actor=rater,
        data=AnnotationInput(note="started"),
        expected_version=1,
    )
    data = _api(rater).get(f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?limit=7").json()
    rows = {row["id"]: row for row in data["results"]}
    assert len(rows) == 7
    plain = serializers.DateTimeField()
    for assignment in Assignment.objects.filter(pk__in=rows):
        row = rows[assignment.pk]
        assert row["page_url"] == reverse("annotator:label", args=[assignment.study_id, assignment.pk])
        assert row["assigned_at"] == plain.to_representation(assignment.assigned_at)
        assert row["started_at"] == (plain.to_representation(assignment.started_at) if assignment.started_at else None)
    assert any(row["started_at"] for row in rows.values())


def test_rows_and_the_labelling_page_name_each_assignments_own_round(big_world, users, client_as):
    for _ in range(3):
        IssueFactory(repository=big_world.repo)
    second = draw(big_world.study, actor=users["owner"], size=3, seed=5)
    later = list(
        Assignment.objects.filter(rater=users["rater_a"], study_issue__round=second).order_by("study_issue__position")
    )
    assert second.number == 2 and len(later) == 3

    rows = _api(users["rater_a"]).get(f"/api/v1/studies/{big_world.study.pk}/assignments/mine/?limit=20").json()
    rounds = {row["id"]: row["round"] for row in rows["results"]}
    assert {rounds[a.pk] for a in later} == {2}
    assert {rounds[a.pk] for a in big_world.assignments["rater_a"]} == {1}

    page = client_as("rater_a").get(f"/studies/{big_world.study.pk}/label/{later[0].pk}/")
    assert page.context["progress"]["study_issue__round__number"] == 2
    assert re.search(r'Round 2: <strong data-testid="progress">0 / 3<', page.content.decode())
    first = client_as("rater_a").get(f"/studies/{big_world.study.pk}/label/{big_world.a.pk}/")
    assert re.search(r'Round 1: <strong data-testid="progress">0 / 7<', first.content.decode())
