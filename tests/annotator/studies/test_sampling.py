import datetime as dt
from collections import Counter

import pytest
from django.utils import timezone

from annotator.models import StudyIssue, StudyRound
from annotator.services.sampling import SampleFilters, draw_sample, study_round_draw
from core.errors import DomainError
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_study

POOL = [(i, "a" if i % 3 else "b") for i in range(1, 301)]


def test_the_same_pool_and_seed_draw_the_same_sample_whatever_the_pool_order():
    first = draw_sample(POOL, size=40, seed=42)
    again = draw_sample(list(reversed(POOL)), size=40, seed=42)
    assert first == again
    assert len(set(first)) == 40


def test_another_seed_draws_another_sample():
    assert draw_sample(POOL, size=40, seed=1) != draw_sample(POOL, size=40, seed=2)


def test_a_sample_larger_than_the_pool_takes_the_whole_pool():
    assert sorted(draw_sample(POOL[:10], size=50, seed=3)) == list(range(1, 11))


def test_proportional_stratification_gives_each_stratum_its_share():
    chosen = draw_sample(POOL, size=30, seed=5, stratification="proportional")
    strata = Counter("a" if i % 3 else "b" for i in chosen)
    assert strata == {"a": 20, "b": 10}
    assert chosen == draw_sample(POOL, size=30, seed=5, stratification="proportional")


def test_fixed_number_per_repository_takes_all_of_a_small_stratum():
    pool = [(i, "big") for i in range(1, 101)] + [(i, "small") for i in range(101, 104)]
    chosen = draw_sample(pool, size=0, seed=5, stratification="per_repository", per_stratum=10)
    strata = Counter("big" if i <= 100 else "small" for i in chosen)
    assert strata == {"big": 10, "small": 3}


@pytest.mark.django_db
def test_a_round_records_frame_size_seed_and_assigns_issues(users):
    repo = RepositoryFactory(owner="NVIDIA", name="Megatron-LM")
    IssueFactory.create_batch(12, repository=repo)
    study = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]])
    study_round = draw(study, actor=users["owner"], size=5, seed=11, repository_ids=[repo.pk], state="open")
    assert (study_round.number, study_round.size, study_round.seed, study_round.drawn) == (1, 5, 11, 5)
    assert study_round.pool_size == 12
    assert study_round.filters["repositories"] == ["NVIDIA/Megatron-LM"]
    assert study_round.filters["state"] == "open"
    positions = list(StudyIssue.objects.filter(study=study).values_list("position", flat=True))
    assert positions == [1, 2, 3, 4, 5]


@pytest.mark.django_db
def test_redrawing_with_the_same_seed_in_another_study_gives_the_same_issues(users):
    IssueFactory.create_batch(30)
    first = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], name="One")
    second = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], name="Two")
    draw(first, actor=users["owner"], size=10, seed=99)
    draw(second, actor=users["owner"], size=10, seed=99)

    def sample(study):
        return list(StudyIssue.objects.filter(study=study).order_by("position").values_list("issue_id", flat=True))

    assert sample(first) == sample(second)


@pytest.mark.django_db
def test_a_new_round_excludes_issues_already_in_the_study(users):
    IssueFactory.create_batch(15)
    study = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]])
    draw(study, actor=users["owner"], size=10, seed=1)
    second = draw(study, actor=users["owner"], size=10, seed=1)
    assert second.number == 2
    assert second.pool_size == 5 and second.drawn == 5
    issue_ids = list(StudyIssue.objects.filter(study=study).values_list("issue_id", flat=True))
    assert len(issue_ids) == len(set(issue_ids)) == 15
    assert list(StudyIssue.objects.filter(round=second).order_by("position").values_list("position", flat=True)) == [
        11,
        12,
        13,
        14,
        15,
    ]


@pytest.mark.django_db
def test_filters_narrow_the_frame(users):
    old = timezone.now() - dt.timedelta(days=400)
    keep = IssueFactory(labels=["bug", "training"], title="NCCL timeout in allreduce", state="closed", created=old)
    IssueFactory(labels=["question"], title="NCCL how to", state="closed", created=old)
    IssueFactory(labels=["training"], title="NCCL hang", state="open", created=old)
    IssueFactory(labels=["training"], title="NCCL late", state="closed")
    study = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]])
    filters = SampleFilters(
        labels=["training"], text="nccl", state="closed", created_to=(timezone.now() - dt.timedelta(days=300)).date()
    )
    study_round = study_round_draw(study=study, actor=users["owner"], filters=filters, size=10, seed=1)
    assert list(StudyIssue.objects.filter(round=study_round).values_list("issue_id", flat=True)) == [keep.pk]


@pytest.mark.django_db
def test_an_empty_frame_is_refused_and_nothing_is_recorded(users):
    IssueFactory.create_batch(3, state="open")
    study = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]])
    with pytest.raises(DomainError, match="No issues match"):
        draw(study, actor=users["owner"], size=5, state="closed")
    assert not StudyRound.objects.filter(study=study).exists()


@pytest.mark.django_db
def test_stratified_round_by_repository(users):
    big, small = RepositoryFactory(), RepositoryFactory()
    IssueFactory.create_batch(20, repository=big)
    IssueFactory.create_batch(4, repository=small)
    study = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]])
    draw(study, actor=users["owner"], size=0, stratification="per_repository", per_repository=5)
    per_repo = Counter(StudyIssue.objects.filter(study=study).values_list("issue__repository_id", flat=True))
    assert per_repo == {big.pk: 5, small.pk: 4}
