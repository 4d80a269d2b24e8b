"""The labels version: bumped by the label services in their transaction, read in one query, and the
precomputation it queues after commit (debounced)."""

import pytest
from celery import current_app
from django.core.cache import cache
from django.utils import timezone

from annotator.models import Study, StudyLabelsVersion
from annotator.selectors.agreement import labels_version
from annotator.services.agreement import agreement_report, report_cache_key
from annotator.services.agreement.precompute import agreement_report_precompute
from annotator.services.agreement.version import agreement_precompute_soon, precompute_lock_key, study_labels_changed
from annotator.services.annotations import AnnotationInput, annotation_reopen, annotation_submit
from annotator.tasks.agreement import agreement_precompute
from tests.annotator.agreement_study.factories import add_round, assignments_of, grant_study

pytestmark = pytest.mark.django_db


def number(study: Study) -> int:
    row = StudyLabelsVersion.objects.filter(study=study).first()
    return row.number if row else 0


def submit(annotation, actor, category) -> None:
    annotation.refresh_from_db()
    annotation_submit(
        annotation=annotation,
        actor=actor,
        data=AnnotationInput(values={"symptom": [category.pk]}),
        expected_version=annotation.version,
    )


def test_the_version_check_is_one_query(users, django_assert_num_queries):
    study = grant_study(users)
    with django_assert_num_queries(1):
        labels_version(study=study)


def test_a_submit_bumps_the_version_and_another_study_is_untouched(users):
    study = grant_study(users, only_symptom=True)
    Study.objects.filter(pk=study.pk).update(name="first", slug="first")
    other = grant_study(users, only_symptom=True)
    before, other_before = labels_version(study=study), labels_version(study=other)
    count = number(study)
    yes = study.taxonomy_fixture["cats"]["symptom"][0]
    submit(assignments_of(study, users["rater_b"])[20].annotation, users["rater_b"], yes)
    assert number(study) > count
    assert labels_version(study=study) != before
    assert labels_version(study=other) == other_before


def test_reopening_an_annotation_bumps_the_version(users):
    from annotator.services.progress import rater_progress_rebuild

    study = grant_study(users)
    rater_progress_rebuild(study=study)  # the factory wrote the statuses without the counters
    before = number(study)
    annotation = assignments_of(study, users["rater_a"])[0].annotation
    annotation_reopen(annotation=annotation, actor=users["owner"], reason="look again")
    assert number(study) == before + 1


def test_a_new_round_changes_the_version(users):
    study = grant_study(users)
    before = labels_version(study=study)
    add_round(study, users, n_issues=2)
    assert labels_version(study=study) != before


def test_a_failed_change_leaves_the_version_as_it_was(users):
    from django.db import transaction

    study = grant_study(users)
    before = number(study)
    with pytest.raises(RuntimeError), transaction.atomic():
        study_labels_changed(study_id=study.pk)
        raise RuntimeError("the label change failed")
    assert number(study) == before


def test_the_first_change_creates_the_row_and_later_ones_count_up(users):
    study = grant_study(users)
    StudyLabelsVersion.objects.filter(study=study).delete()
    study_labels_changed(study_id=study.pk)
    study_labels_changed(study_id=study.pk)
    assert number(study) == 2


@pytest.mark.django_db(transaction=True)
def test_two_first_changes_at_once_both_count(users):
    import time

    from django.db import transaction

    from tests.concurrency import raised, run_together

    study = grant_study(users)
    StudyLabelsVersion.objects.filter(study=study).delete()

    def change() -> None:
        with transaction.atomic():
            study_labels_changed(study_id=study.pk)
            time.sleep(0.2)  # the new row stays uncommitted while the other change finds none and creates it too

    assert raised(run_together(change, change)) == []
    assert number(study) == 2


@pytest.fixture
def with_broker(monkeypatch):
    """As with a broker: tasks are queued, not run in-process (apply_async is recorded instead)."""
    queued = []
    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    monkeypatch.setattr(agreement_precompute, "apply_async", lambda args, eta: queued.append((args, eta)))
    return queued


def test_a_change_queues_one_precomputation_after_commit(users, with_broker, django_capture_on_commit_callbacks):
    study = grant_study(users)
    cache.delete(precompute_lock_key(study.pk))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        study_labels_changed(study_id=study.pk)
        study_labels_changed(study_id=study.pk)
    assert len(callbacks) == 2
    assert [args for args, _ in with_broker] == [[study.pk]]  # debounced: one task for the burst
    assert with_broker[0][1] > timezone.now()  # later, so a burst of submits is computed once


def test_nothing_is_queued_before_commit(users, with_broker, django_capture_on_commit_callbacks):
    study = grant_study(users)
    cache.delete(precompute_lock_key(study.pk))
    with django_capture_on_commit_callbacks(execute=False):
        study_labels_changed(study_id=study.pk)
    assert with_broker == []


def test_without_a_broker_nothing_runs_in_the_raters_request(users, monkeypatch):
    study = grant_study(users)
    monkeypatch.setitem(current_app.conf, "task_always_eager", True)
    assert agreement_precompute_soon(study_id=study.pk) is False
    assert cache.get(precompute_lock_key(study.pk)) is None


def test_the_task_caches_the_report_and_frees_the_lock(users, django_assert_num_queries):
    study = grant_study(users)
    cache.set(precompute_lock_key(study.pk), 1)
    agreement_precompute(study.pk)
    assert cache.get(precompute_lock_key(study.pk)) is None
    version = labels_version(study=study)
    assert cache.get(report_cache_key(study=study, version=version)) is not None
    again = Study.objects.get(pk=study.pk)
    with django_assert_num_queries(1):  # the page's next view: the version only, the figures come from the cache
        report = agreement_report(study=again)
    assert next(d for d in report["dimensions"] if d["key"] == "symptom")["summary"]["kappa"] == pytest.approx(0.4)


def test_the_task_is_idempotent_and_ignores_a_deleted_study(users):
    study = grant_study(users)
    first = agreement_report_precompute(study=study)
    assert agreement_report_precompute(study=study) == first
    agreement_precompute(999_999)  # gone since it was queued: nothing to do, no error


@pytest.mark.django_db(transaction=True)
def test_a_submit_stands_when_queueing_the_recomputation_fails_after_commit(users, monkeypatch, caplog):
    import redis

    def cache_down(**kwargs):
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr("annotator.services.agreement.version.agreement_precompute_soon", cache_down)
    study = grant_study(users, only_symptom=True)
    annotation = assignments_of(study, users["rater_b"])[20].annotation
    count = number(study)
    submit(annotation, users["rater_b"], study.taxonomy_fixture["cats"]["symptom"][0])  # no exception: committed
    annotation.refresh_from_db()
    assert annotation.submitted_at is not None and number(study) == count + 1
    assert "Connection refused" in caplog.text  # logged by Django's robust on_commit
