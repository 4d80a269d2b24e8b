import threading

import pytest
from django.db import connection, connections

from annotator.models import Annotation
from annotator.services.annotations import AnnotationInput, annotation_save_draft, annotation_submit
from core.errors import ConflictError
from tests.annotator.studies.conftest import build_world, complete_input

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
]


def _run_together(*jobs):
    """Run callables in threads released at the same moment; return what each raised (or None)."""
    barrier = threading.Barrier(len(jobs))
    outcomes: list = [None] * len(jobs)

    def runner(i, job):
        try:
            barrier.wait()
            job()
        except Exception as exc:
            outcomes[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=runner, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


@pytest.fixture
def pg_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks are only real on PostgreSQL (SQLite serialises whole-database writes)")


def test_two_tabs_saving_the_same_version_one_wins_the_other_conflicts(pg_only, users):
    world = build_world(users, n_issues=2)
    annotation = world.a.annotation

    def save(note):
        return lambda: annotation_save_draft(
            annotation=annotation, actor=users["rater_a"], data=AnnotationInput(note=note), expected_version=1
        )

    outcomes = _run_together(save("tab one"), save("tab two"))
    assert sorted(type(o).__name__ for o in outcomes) == ["ConflictError", "NoneType"]
    annotation.refresh_from_db()
    assert annotation.version == 2
    assert annotation.note in {"tab one", "tab two"}


def test_both_raters_submitting_at_once_still_freeze_the_issue(pg_only, users):
    world = build_world(users, n_issues=2)

    def submit(assignment, role):
        return lambda: annotation_submit(
            annotation=assignment.annotation, actor=users[role], data=complete_input(world), expected_version=1
        )

    outcomes = _run_together(submit(world.a, "rater_a"), submit(world.b, "rater_b"))
    assert outcomes == [None, None]
    frozen = Annotation.objects.filter(pk__in=[world.a.annotation.pk, world.b.annotation.pk], frozen=True).count()
    assert frozen == 2
    assert not any(isinstance(o, ConflictError) for o in outcomes)
