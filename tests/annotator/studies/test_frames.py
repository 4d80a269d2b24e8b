"""Sample frames: recorded with the study, append-only, the pool of every draw; demo issues only when listed."""

import datetime as dt
import json

import pytest

from annotator.models import ImportedIssue, ImportJob, Issue, StudyFrame, StudyIssue
from annotator.selectors.issues import IssueFilters
from annotator.services.frames import FrameSpec, frame_issues, frame_summary, study_frame_current, study_frame_set
from annotator.services.imports import file_import_job_execute
from annotator.services.sampling import study_issues_add
from core.errors import DomainError, PermissionDeniedError
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_study
from tests.factories import UserFactory

UTC = dt.UTC


def _drawn(study) -> set[int]:
    return set(StudyIssue.objects.filter(study=study).values_list("issue_id", flat=True))


def _study(users, **options):
    return make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], **options)


@pytest.mark.django_db
def test_a_study_records_its_frame_and_draws_only_from_a_saved_search(users):
    repo = RepositoryFactory(owner="hpcaitech", name="ColossalAI")
    when = dt.datetime(2024, 3, 10, 12, tzinfo=UTC)
    wanted = IssueFactory.create_batch(
        4, repository=repo, labels=["bug"], state="closed", created=when, title="NCCL hang"
    )
    IssueFactory(repository=repo, labels=["bug"], state="open", created=when, title="NCCL hang")  # open
    IssueFactory(repository=repo, labels=["question"], state="closed", created=when, title="NCCL hang")  # label
    IssueFactory(repository=repo, labels=["bug"], state="closed", created=when - dt.timedelta(days=90), title="NCCL")
    IssueFactory(repository=repo, labels=["bug"], state="closed", created=when, title="Loss spikes")  # text
    IssueFactory(repository=repo, labels=["bug"], state="closed", created=when, title="NCCL hang", demo=True)
    search = IssueFilters(
        q="NCCL",
        label="bug",
        state="closed",
        created_from=dt.date(2024, 3, 1),
        created_to=dt.date(2024, 3, 31),
    )
    study = _study(users, frame=FrameSpec(kind="search", search=search))

    frame = study_frame_current(study=study)
    assert (frame.number, frame.kind, frame.created_by) == (1, "search", users["owner"])
    assert frame.definition == {**search.to_record(), "created_from": "2024-03-01", "created_to": "2024-03-31"}
    study_round = draw(study, actor=users["owner"], size=50)
    assert _drawn(study) == {issue.pk for issue in wanted}
    assert (study_round.frame, study_round.pool_size) == (frame, 4)


@pytest.mark.django_db
def test_demo_issues_are_in_no_frame_unless_listed_one_by_one(users):
    repo = RepositoryFactory()
    real = IssueFactory(repository=repo)
    demo = IssueFactory(repository=repo, demo=True)
    for spec in (FrameSpec(), FrameSpec(kind="repositories", repository_ids=(repo.pk,))):
        study = _study(users, frame=spec)
        assert set(frame_issues(study_frame_current(study=study)).values_list("pk", flat=True)) == {real.pk}
    chosen = _study(users, frame=FrameSpec(kind="explicit", issue_ids=(demo.pk, real.pk)))
    draw(chosen, actor=users["owner"], size=5)
    assert _drawn(chosen) == {demo.pk, real.pk}


@pytest.mark.django_db
def test_an_import_batch_frame_holds_exactly_the_issues_that_file_named(users):
    IssueFactory.create_batch(3)  # imported earlier, not in the batch
    records = [{"url": f"https://github.com/deepspeedai/DeepSpeed/issues/{n}", "title": f"Bug {n}"} for n in (7, 8)]
    job, outcome = file_import_job_execute(data=json.dumps(records).encode(), name="batch.json", user=users["owner"])
    assert outcome.written and job.status == ImportJob.Status.DONE
    batch = set(Issue.objects.filter(url__in=[r["url"] for r in records]).values_list("pk", flat=True))
    assert set(ImportedIssue.objects.filter(job=job).values_list("issue_id", flat=True)) == batch
    # Importing the same file again makes a second batch of the same (unchanged) issues.
    again, _ = file_import_job_execute(data=json.dumps(records).encode(), name="batch.json", user=users["owner"])
    assert set(ImportedIssue.objects.filter(job=again).values_list("issue_id", flat=True)) == batch

    study = _study(users, frame=FrameSpec(kind="import_batch", import_job_id=job.pk))
    draw(study, actor=users["owner"], size=10)
    assert _drawn(study) == batch
    assert study_frame_current(study=study).definition == {"import_job": job.pk, "filename": "batch.json"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (FrameSpec(kind="search", search=IssueFilters()), "search"),
        (
            FrameSpec(
                kind="search", search=IssueFilters(created_from=dt.date(2024, 2, 1), created_to=dt.date(2024, 1, 1))
            ),
            "search",
        ),
        (FrameSpec(kind="import_batch", import_job_id=None), "import_job"),
        (FrameSpec(kind="repositories"), "repositories"),
        (FrameSpec(kind="explicit", issue_ids=(10**9,)), "issues"),
        (FrameSpec(kind="nonsense"), "frame"),
    ],
)
def test_an_invalid_frame_is_refused_and_no_study_is_left_behind(users, spec, field):
    from annotator.models import Study

    with pytest.raises(DomainError) as refused:
        _study(users, frame=spec, name="Refused")
    assert refused.value.field == field
    assert not Study.objects.filter(name="Refused").exists()


def _batch_of(job, issues) -> set[int]:
    ImportedIssue.objects.bulk_create([ImportedIssue(job=job, issue=issue) for issue in issues])
    return {issue.pk for issue in issues}


@pytest.mark.django_db
def test_a_github_import_is_a_batch_frame_too(users):
    IssueFactory.create_batch(2)  # stored by an earlier sync
    job = ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB, status=ImportJob.Status.DONE, parameters={"repository": "org/repo"}
    )
    batch = _batch_of(job, IssueFactory.create_batch(3))
    study = _study(users, frame=FrameSpec(kind="import_batch", import_job_id=job.pk))
    frame = study_frame_current(study=study)
    assert frame.definition == {"import_job": job.pk, "repository_name": "org/repo"}
    assert frame_summary(frame) == f"import #{job.pk} (org/repo)"
    draw(study, actor=users["owner"], size=10)
    assert _drawn(study) == batch


@pytest.mark.django_db
def test_a_saved_search_may_hold_an_import_and_records_it_by_name(users):
    done = {"status": ImportJob.Status.DONE, "created_by": users["owner"]}
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE, parameters={"filename": "batch.json"}, **done)
    closed = _batch_of(job, IssueFactory.create_batch(2, state="closed"))
    _batch_of(job, [IssueFactory(state="open")])
    IssueFactory(state="closed")  # not in the import
    search = IssueFilters(state="closed", import_job=job.pk)
    study = _study(users, frame=FrameSpec(kind="search", search=search))
    frame = study_frame_current(study=study)
    assert frame.definition == {**search.to_record(), "import_name": "batch.json"}
    assert IssueFilters.from_record(frame.definition) == search
    assert f"import #{job.pk} (batch.json)" in frame_summary(frame)
    draw(study, actor=users["owner"], size=10)
    assert _drawn(study) == closed


@pytest.mark.django_db
def test_a_search_recorded_before_imports_were_a_filter_loads_as_it_was():
    old = {"q": "NCCL", "repository": None, "state": "closed", "kind": "", "label": "bug",
           "created_from": "2024-03-01", "created_to": None}  # fmt: skip
    loaded = IssueFilters.from_record(old)
    assert loaded == IssueFilters(q="NCCL", state="closed", label="bug", created_from=dt.date(2024, 3, 1))
    assert loaded.import_job is None


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["import_batch", "search"])
def test_another_teams_file_import_is_no_frame_of_mine(users, kind):
    other = UserFactory(username="other_owner")
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE, status=ImportJob.Status.DONE, created_by=other)
    _batch_of(job, IssueFactory.create_batch(2))
    spec = FrameSpec(kind=kind, import_job_id=job.pk, search=IssueFilters(import_job=job.pk))
    with pytest.raises(DomainError, match="Choose a file or GitHub import") as refused:
        _study(users, frame=spec, name="Refused")
    assert refused.value.field == ("import_job" if kind == "import_batch" else "search")


@pytest.mark.django_db
def test_a_spreadsheet_import_is_no_batch_frame(users):
    job = ImportJob.objects.create(kind=ImportJob.Kind.SHEETS, status=ImportJob.Status.DONE, created_by=users["owner"])
    with pytest.raises(DomainError, match="Choose a file or GitHub import"):
        _study(users, frame=FrameSpec(kind="import_batch", import_job_id=job.pk))


@pytest.mark.django_db
def test_an_unfinished_import_is_no_frame(users):
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE, status=ImportJob.Status.RUNNING, created_by=users["owner"])
    with pytest.raises(DomainError, match="not done"):
        _study(users, frame=FrameSpec(kind="import_batch", import_job_id=job.pk))


@pytest.mark.django_db
def test_frames_are_appended_and_each_round_keeps_the_frame_it_was_drawn_from(users):
    first_repo, second_repo = RepositoryFactory(name="one"), RepositoryFactory(name="two")
    IssueFactory.create_batch(3, repository=first_repo)
    later = IssueFactory.create_batch(2, repository=second_repo)
    study = _study(users, frame=FrameSpec(kind="repositories", repository_ids=(first_repo.pk,)))
    first_round = draw(study, actor=users["owner"], size=10)
    frame = study_frame_set(
        study=study, actor=users["owner"], spec=FrameSpec(kind="repositories", repository_ids=(second_repo.pk,))
    )
    second_round = draw(study, actor=users["owner"], size=10)
    first_round.refresh_from_db()
    assert [f.number for f in StudyFrame.objects.filter(study=study)] == [1, 2]
    assert first_round.frame.number == 1 and second_round.frame == frame
    assert set(second_round.study_issues.values_list("issue_id", flat=True)) == {i.pk for i in later}


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["rater_a", "adjudicator", "outsider"])
def test_only_the_owner_sets_a_frame_or_adds_issues(users, outsider, role):
    users = {**users, "outsider": outsider}
    study = _study(users, adjudicators=[users["adjudicator"]])
    issue = IssueFactory()
    with pytest.raises(PermissionDeniedError):
        study_frame_set(study=study, actor=users[role], spec=FrameSpec())
    with pytest.raises(PermissionDeniedError):
        study_issues_add(study=study, actor=users[role], issue_ids=[issue.pk])
    assert StudyFrame.objects.filter(study=study).count() == 1
    assert not StudyIssue.objects.filter(study=study).exists()


@pytest.mark.django_db
def test_issues_added_from_search_results_enter_as_a_recorded_round_and_leave_the_frame_as_it_was(users):
    issues = IssueFactory.create_batch(4)
    study = _study(users)
    draw(study, actor=users["owner"], size=1, seed=3)
    present = next(iter(_drawn(study)))
    added = study_issues_add(study=study, actor=users["owner"], issue_ids=[present, *[i.pk for i in issues[:3]]])
    expected = {i.pk for i in issues[:3]} - {present}
    assert set(added.study_issues.values_list("issue_id", flat=True)) == expected
    assert added.frame.added and added.frame.kind == "explicit"
    assert added.frame.definition == {"issues": sorted(expected)}
    assert added.study_issues.first().assignments.count() == 2
    assert study_frame_current(study=study).number == 1
    with pytest.raises(DomainError, match="in the study already"):
        study_issues_add(study=study, actor=users["owner"], issue_ids=list(expected))


@pytest.mark.django_db
def test_the_search_date_range_counts_whole_days():
    inside = IssueFactory(created=dt.datetime(2024, 1, 31, 23, 59, tzinfo=UTC))
    IssueFactory(created=dt.datetime(2024, 2, 1, 0, 0, tzinfo=UTC))
    IssueFactory(created=dt.datetime(2023, 12, 31, 23, 59, tzinfo=UTC))
    first = IssueFactory(created=dt.datetime(2024, 1, 1, 0, 0, tzinfo=UTC))
    from annotator.selectors.issues import issues_filtered

    found = issues_filtered(filters=IssueFilters(created_from=dt.date(2024, 1, 1), created_to=dt.date(2024, 1, 31)))
    assert set(found.values_list("pk", flat=True)) == {inside.pk, first.pk}


@pytest.mark.django_db
def test_a_recorded_frame_cannot_be_rewritten_in_the_database(users):
    from django.db import IntegrityError, transaction

    repo = RepositoryFactory(name="guarded")
    IssueFactory.create_batch(2, repository=repo)
    study = _study(users, frame=FrameSpec(kind="repositories", repository_ids=(repo.pk,)))
    frame = StudyFrame.objects.get(study=study)
    with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
        StudyFrame.objects.filter(pk=frame.pk).update(definition={"rewritten": True})
    frame.refresh_from_db()
    assert "rewritten" not in frame.definition
