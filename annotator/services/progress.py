"""Per-rater, per-round progress counters (RaterProgress): kept in step with the assignments' statuses.

Every service that creates assignments or changes an assignment's status calls one of these inside
its own transaction, so a counter always equals a recount of the assignments it stands for; the
rater's pages then read a handful of counter rows instead of counting a queue of 100,000.
"""

from collections import Counter
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, F, OuterRef, Subquery

from annotator.models import Assignment, RaterProgress, Study, StudyIssue, StudyRound

COUNTERS = {status.value for status in Assignment.Status}


def rater_progress_add(*, study: Study, study_round: StudyRound, rater_ids: Iterable[int]) -> None:
    """New assignments (status "assigned"), one entry per assignment in `rater_ids`: one upsert per rater."""
    added = Counter(rater_ids)
    existing = {
        row.rater_id: row
        for row in RaterProgress.objects.select_for_update().filter(
            study=study, round=study_round, rater_id__in=list(added)
        )
    }
    for rater_id, row in existing.items():
        RaterProgress.objects.filter(pk=row.pk).update(assigned=F("assigned") + added.pop(rater_id))
    RaterProgress.objects.bulk_create(
        [
            RaterProgress(study=study, round=study_round, rater_id=rater_id, assigned=n)
            for rater_id, n in sorted(added.items())
        ]
    )


def rater_progress_move(*, assignment: Assignment, old: str, new: str) -> None:
    """One assignment went from status `old` to `new`. Needs assignment.study_issue (for the round) loaded."""
    if old == new:
        return
    if old not in COUNTERS or new not in COUNTERS:
        raise ValueError(f"unknown assignment status {old!r} or {new!r}")
    study_issue = assignment.study_issue
    changed = RaterProgress.objects.filter(
        study_id=study_issue.study_id, round_id=study_issue.round_id, rater_id=assignment.rater_id
    ).update(**{old: F(old) - 1, new: F(new) + 1})
    if not changed:
        # Assignments written by some other path (e.g. an import) without counters: count them now,
        # after this change (the caller has already saved the new status).
        _recount(study_id=study_issue.study_id, round_ids=[study_issue.round_id], rater_ids=[assignment.rater_id])


def rater_progress_recount_rater(*, study_issue: StudyIssue, rater_id: int) -> None:
    """Recount one rater's counter of the issue's round (its row was missing: assignments written elsewhere)."""
    _recount(study_id=study_issue.study_id, round_ids=[study_issue.round_id], rater_ids=[rater_id])


@transaction.atomic
def rater_progress_rebuild(*, study: Study | None = None) -> int:
    """Recount the counters of one study (or all) from the assignments; returns the number of counter rows."""
    studies = [study.pk] if study is not None else list(Study.objects.order_by("pk").values_list("pk", flat=True))
    for study_id in studies:
        _fill_queue_columns(study_id=study_id)
    return sum(_recount(study_id=study_id) for study_id in studies)


def _fill_queue_columns(*, study_id: int) -> None:
    """Assignments written without their study / position copies (which the queue reads) get them."""
    source = StudyIssue.objects.filter(pk=OuterRef("study_issue_id"))
    Assignment.objects.filter(study_issue__study_id=study_id, study__isnull=True).update(
        study_id=study_id, position=Subquery(source.values("position")[:1])
    )


def _recount(*, study_id: int, round_ids: list[int] | None = None, rater_ids: list[int] | None = None) -> int:
    """Replace the counters of a study (optionally only some rounds / raters) with a recount."""
    assignments = Assignment.objects.filter(study_issue__study_id=study_id)
    stale = RaterProgress.objects.filter(study_id=study_id)
    if round_ids is not None:
        assignments = assignments.filter(study_issue__round_id__in=round_ids)
        stale = stale.filter(round_id__in=round_ids)
    if rater_ids is not None:
        assignments = assignments.filter(rater_id__in=rater_ids)
        stale = stale.filter(rater_id__in=rater_ids)
    # Delete first: it waits for any transaction still moving one of these counters, so the count
    # below (a new snapshot) includes that change; a later move finds no row and recounts itself.
    stale.delete()
    counts: dict[tuple[int, int], dict[str, int]] = {}
    rows = (
        assignments.values_list("study_issue__round_id", "rater_id", "status")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("study_issue__round_id", "rater_id", "status", "n")
    )
    for round_id, rater_id, status, n in rows:
        counts.setdefault((round_id, rater_id), dict.fromkeys(COUNTERS, 0))[status] = n
    RaterProgress.objects.bulk_create(
        [
            RaterProgress(study_id=study_id, round_id=round_id, rater_id=rater_id, **values)
            for (round_id, rater_id), values in sorted(counts.items())
        ]
    )
    return len(counts)
