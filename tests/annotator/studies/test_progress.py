"""The raters' progress counters always equal a recount of their assignments, whatever the services do."""

import random
from functools import partial

import pytest
from django.core.management import call_command

from annotator.models import Annotation, Assignment, RaterProgress
from annotator.selectors.labelling import rater_progress
from annotator.services.annotations import AnnotationInput, annotation_reopen, annotation_save_draft, annotation_submit
from annotator.services.assignments import assignment_skip, assignment_unskip
from annotator.services.progress import rater_progress_rebuild
from core.errors import DomainError
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import draw
from tests.annotator.worlds import complete_input

STATUSES = [status.value for status in Assignment.Status]


def recount(study) -> dict[tuple[int, int], dict[str, int]]:
    counts: dict[tuple[int, int], dict[str, int]] = {}
    for round_id, rater_id, status in Assignment.objects.filter(study_issue__study=study).values_list(
        "study_issue__round_id", "rater_id", "status"
    ):
        counts.setdefault((round_id, rater_id), dict.fromkeys(STATUSES, 0))[status] += 1
    return counts


def counters(study) -> dict[tuple[int, int], dict[str, int]]:
    return {
        (row.round_id, row.rater_id): {status: getattr(row, status) for status in STATUSES}
        for row in RaterProgress.objects.filter(study=study)
    }


def test_drawing_a_round_creates_one_counter_per_rater(world):
    assert counters(world.study) == recount(world.study)
    assert {row["assigned"] for row in counters(world.study).values()} == {5}


def _operations(world, users, rng: random.Random):
    """Yield (name, call) pairs: random service calls by the raters and the owner."""

    def another_round(seed: int) -> None:
        for _ in range(2):
            IssueFactory(repository=world.repo)
        draw(world.study, actor=users["owner"], size=2, seed=seed)

    while True:
        role = rng.choice(["rater_a", "rater_b"])
        assignment = Assignment.objects.select_related("annotation").get(
            pk=rng.choice(Assignment.objects.filter(rater=users[role]).values_list("pk", flat=True))
        )
        annotation, actor = assignment.annotation, users[role]
        kind = rng.choice(["draft", "submit", "submit", "skip", "unskip", "reopen", "draw"])
        version = annotation.version
        calls = {
            "draft": partial(
                annotation_save_draft,
                annotation=annotation,
                actor=actor,
                data=AnnotationInput(note="n"),
                expected_version=version,
            ),
            "submit": partial(
                annotation_submit,
                annotation=annotation,
                actor=actor,
                data=complete_input(world),
                expected_version=version,
            ),
            "skip": partial(assignment_skip, assignment=assignment, actor=actor, reason="unclear"),
            "unskip": partial(assignment_unskip, assignment=assignment, actor=actor),
            "reopen": partial(annotation_reopen, annotation=annotation, actor=users["owner"], reason="check"),
            "draw": partial(another_round, rng.randrange(1000)),
        }
        yield kind, calls[kind]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counters_equal_a_recount_after_every_service_operation(world, users, seed):
    rng = random.Random(seed)
    done: list[str] = []
    for _, (name, operation) in zip(range(40), _operations(world, users, rng), strict=False):
        try:
            operation()
            done.append(name)
        except DomainError:
            done.append(f"{name} (refused)")
        assert counters(world.study) == recount(world.study), f"counters drifted after {done}"
    assert any(name == "submit" for name in done) and any(name == "draw" for name in done), done


def test_progress_reads_the_counters_not_the_assignments(world, users, django_assert_num_queries):
    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    with django_assert_num_queries(1):
        rows = rater_progress(rater=users["rater_a"], study=world.study)
    assert rows == [
        {
            "round_id": world.round.pk,
            "study_issue__round__number": 1,
            "study_issue__round__kind": "main",
            "total": 5,
            "done": 1,
            "skipped": 0,
            "drafted": 0,
        }
    ]


def test_a_rater_without_assignments_has_no_progress(world, users):
    assert rater_progress(rater=users["owner"], study=world.study) == []


def test_a_status_change_without_a_counter_counts_it_afresh(world, users):
    """Assignments written by an import without counters get them at their first change."""
    RaterProgress.objects.all().delete()
    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    row = RaterProgress.objects.get(study=world.study, rater=users["rater_a"])
    assert (row.assigned, row.submitted) == (4, 1)


def test_rebuild_progress_repairs_wrong_counters_and_missing_queue_columns(world, users):
    RaterProgress.objects.filter(rater=users["rater_a"]).update(assigned=99, skipped=7)
    RaterProgress.objects.filter(rater=users["rater_b"]).delete()
    Assignment.objects.filter(pk=world.a.pk).update(study=None, position=None)
    call_command("rebuild_progress", "--study", world.study.slug, stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert counters(world.study) == recount(world.study)
    world.a.refresh_from_db()
    assert (world.a.study_id, world.a.position) == (world.study.pk, world.a.study_issue.position)


def test_rebuild_progress_names_an_unknown_study(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No study named 'nope'"):
        call_command("rebuild_progress", "--study", "nope")
    with pytest.raises(CommandError, match="No study named '²'"):  # a digit to str.isdigit, not an id
        call_command("rebuild_progress", "--study", "²")


def test_rebuild_of_all_studies_counts_every_study(world):
    RaterProgress.objects.all().delete()
    assert rater_progress_rebuild() == 2
    assert counters(world.study) == recount(world.study)


def test_the_data_migration_counts_existing_assignments(world, users):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotator.migrations.0010_labelling_progress_counters")
    annotation_submit(
        annotation=world.b.annotation, actor=users["rater_b"], data=complete_input(world), expected_version=1
    )
    RaterProgress.objects.all().delete()
    migration.count_progress(apps, None)
    assert counters(world.study) == recount(world.study)
    assert Annotation.objects.filter(submitted_at__isnull=False).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_draft_and_a_skip_at_once_keep_the_counters_exact(users):
    from tests.annotator.worlds import build_world
    from tests.concurrency import raised, run_together

    world = build_world(users, n_issues=2)
    rater = users["rater_a"]
    outcomes = run_together(
        lambda: annotation_save_draft(
            annotation=world.a.annotation, actor=rater, data=AnnotationInput(note="n"), expected_version=1
        ),
        lambda: assignment_skip(assignment=world.a, actor=rater, reason="unclear"),
    )
    assert raised(outcomes) == [], outcomes
    assert counters(world.study) == recount(world.study)
