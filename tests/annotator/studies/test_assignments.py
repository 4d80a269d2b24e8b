from collections import Counter
from itertools import combinations

import pytest

from annotator.models import Annotation, AnnotationHistory, Assignment, StudyIssue
from annotator.services.assignments import assignment_skip, plan_assignments
from core.errors import DomainError
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import draw, make_study
from tests.factories import UserFactory


def _loads(plan):
    return Counter(rater for raters in plan for rater in raters)


def _pairs(plan):
    return Counter(pair for raters in plan for pair in combinations(raters, 2))


@pytest.mark.parametrize(("n_raters", "per_item", "n_items"), [(2, 2, 10), (3, 2, 31), (4, 2, 60), (5, 3, 47)])
def test_every_item_gets_exactly_n_distinct_raters_and_workload_is_balanced(n_raters, per_item, n_items):
    plan = plan_assignments(n_items, list(range(1, n_raters + 1)), per_item)
    assert all(len(set(raters)) == per_item for raters in plan)
    loads = _loads(plan)
    assert max(loads.values()) - min(loads.values()) <= 1, loads


def test_with_more_than_two_raters_every_pair_overlaps_about_equally():
    plan = plan_assignments(60, [1, 2, 3, 4], 2)
    pairs = _pairs(plan)
    assert len(pairs) == 6
    assert max(pairs.values()) - min(pairs.values()) <= 2, pairs


def test_fixed_pair_gets_every_item():
    assert set(plan_assignments(8, [7, 3], 2, mode="fixed")) == {(3, 7)}


def test_too_few_raters_is_an_error():
    with pytest.raises(ValueError, match="at least 3 raters"):
        plan_assignments(3, [1, 2], 3)


@pytest.mark.django_db
def test_a_drawn_round_assigns_each_issue_to_exactly_n_raters_with_an_empty_annotation(users):
    raters = [users["rater_a"], users["rater_b"], UserFactory(username="rater_c")]
    IssueFactory.create_batch(9)
    study = make_study(owner=users["owner"], raters=raters)
    draw(study, actor=users["owner"], size=9)
    per_issue = Counter(Assignment.objects.filter(study_issue__study=study).values_list("study_issue_id", flat=True))
    assert set(per_issue.values()) == {2} and len(per_issue) == 9
    assert Counter(Assignment.objects.values_list("rater_id", flat=True)) == {r.pk: 6 for r in raters}
    assert Annotation.objects.filter(assignment__study_issue__study=study).count() == 18


@pytest.mark.django_db
def test_a_later_round_keeps_the_workload_balanced(users):
    raters = [users["rater_a"], users["rater_b"], UserFactory(username="rater_c")]
    IssueFactory.create_batch(10)
    study = make_study(owner=users["owner"], raters=raters)
    draw(study, actor=users["owner"], size=5)
    draw(study, actor=users["owner"], size=5)
    loads = Counter(Assignment.objects.values_list("rater_id", flat=True))
    assert max(loads.values()) - min(loads.values()) <= 1
    assert StudyIssue.objects.filter(study=study).count() == 10


@pytest.mark.django_db
def test_a_study_needs_as_many_raters_as_raters_per_issue(users):
    with pytest.raises(DomainError, match="at least 2 raters"):
        make_study(owner=users["owner"], raters=[users["rater_a"]])


@pytest.mark.django_db
def test_skipping_needs_a_reason_and_is_recorded(world, users):
    with pytest.raises(DomainError, match="Say why"):
        assignment_skip(assignment=world.a, actor=users["rater_a"], reason="  ")
    world.a.refresh_from_db()
    assert world.a.status == Assignment.Status.ASSIGNED
    assignment_skip(assignment=world.a, actor=users["rater_a"], reason="Not in English")
    world.a.refresh_from_db()
    assert (world.a.status, world.a.skip_reason) == ("skipped", "Not in English")
    assert AnnotationHistory.objects.filter(annotation=world.a.annotation, action="skip").count() == 1
