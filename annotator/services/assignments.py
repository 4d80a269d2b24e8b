"""Who labels which issue: every issue of a round goes to exactly N raters, created up front in bulk.

Creating assignments when the round is drawn (not on demand) means raters asking for work at
the same moment can never over-assign an issue: "next issue" only reads.
"""

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from django.db import transaction
from django.db.models import Count

from annotator.models import Annotation, AnnotationHistory, Assignment, Study, StudyIssue, StudyMember, StudyRound
from annotator.permissions import rater_role_held, require_assigned_rater
from annotator.services.progress import rater_progress_add, rater_progress_move
from core.errors import ConflictError, DomainError

MODE_BALANCED = "balanced"
MODE_FIXED = "fixed"


def plan_assignments(
    n_items: int,
    raters: Sequence[int],
    per_item: int,
    *,
    mode: str = MODE_BALANCED,
    load: dict[int, int] | None = None,
    pair_overlap: dict[tuple[int, int], int] | None = None,
    single: Sequence[bool] | None = None,
) -> list[tuple[int, ...]]:
    """The raters of each item, in item order. Pure and deterministic.

    fixed: the first `per_item` raters get every item. balanced: each item goes to the least
    loaded raters; among equally loaded ones, those who have shared the fewest items with the
    raters already chosen, so with more than N raters every pair overlaps about equally.
    `load` and `pair_overlap` carry counts from earlier rounds. `single` (per item) marks the items
    outside the reliability subset: each goes to one rater, the least loaded (of the fixed raters, in
    fixed mode), so the single-coded work evens out the workload the double-coded work leaves.
    """
    raters = sorted(set(raters))
    if per_item < 1:
        raise ValueError("per_item must be at least 1")
    if len(raters) < per_item:
        raise ValueError(f"{per_item} raters per item needs at least {per_item} raters, got {len(raters)}")
    single = list(single) if single is not None else [False] * n_items
    if len(single) != n_items:
        raise ValueError("single must have one flag per item")
    if mode == MODE_FIXED and not any(single):
        return [tuple(raters[:per_item])] * n_items
    pool = raters[:per_item] if mode == MODE_FIXED else raters
    load = Counter(load or {})
    pairs = Counter(pair_overlap or {})
    plan: list[tuple[int, ...]] = []
    for item in range(n_items):
        chosen: list[int] = []
        for _slot in range(1 if single[item] else per_item):
            candidates = [rater for rater in pool if rater not in chosen]
            best = min(
                candidates,
                key=lambda r: (load[r], sum(pairs[tuple(sorted((r, c)))] for c in chosen), r),
            )
            chosen.append(best)
        for rater in chosen:
            load[rater] += 1
        for pair in combinations(sorted(chosen), 2):
            pairs[pair] += 1
        plan.append(tuple(sorted(chosen)))
    return plan


def _existing_counts(study: Study) -> tuple[dict[int, int], dict[tuple[int, int], int]]:
    """Workload per rater and overlap per rater pair from earlier rounds (bounded: two aggregates)."""
    load = dict(
        Assignment.objects.filter(study_issue__study=study)
        .values_list("rater_id")
        .annotate(n=Count("id"))
        .values_list("rater_id", "n")
    )
    pairs: Counter = Counter()
    rows = (
        Assignment.objects.filter(study_issue__study=study)
        .values_list("study_issue_id", "rater_id")
        .order_by("study_issue_id", "rater_id")
    )
    current, group = None, []
    for study_issue_id, rater_id in rows.iterator(chunk_size=5000):
        if study_issue_id != current:
            pairs.update(combinations(group, 2))
            current, group = study_issue_id, []
        group.append(rater_id)
    pairs.update(combinations(group, 2))
    return load, dict(pairs)


def study_rater_ids(study: Study) -> list[int]:
    return list(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER)
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )


def assignments_create_for_round(
    *, study: Study, study_round: StudyRound, study_issues: Sequence[StudyIssue]
) -> list[Assignment]:
    """Assign every double-coded issue of the round to `raters_per_issue` raters and every single-coded one to
    one rater, with an empty annotation each."""
    raters = study_rater_ids(study)
    if len(raters) < study.raters_per_issue:
        raise DomainError(
            f"This study needs at least {study.raters_per_issue} raters to assign issues; it has {len(raters)}. "
            "Add raters first."
        )
    load, pairs = _existing_counts(study) if study_round.number > 1 else ({}, {})
    plan = plan_assignments(
        len(study_issues),
        raters,
        study.raters_per_issue,
        mode=study.assignment_mode,
        load=load,
        pair_overlap=pairs,
        single=[not study_issue.double_coded for study_issue in study_issues],
    )
    assignments = Assignment.objects.bulk_create(
        [
            Assignment(study_issue=study_issue, rater_id=rater_id, study=study, position=study_issue.position)
            for study_issue, chosen in zip(study_issues, plan, strict=True)
            for rater_id in chosen
        ],
        batch_size=2000,
    )
    Annotation.objects.bulk_create([Annotation(assignment=a) for a in assignments], batch_size=2000)
    rater_progress_add(study=study, study_round=study_round, rater_ids=[a.rater_id for a in assignments])
    return assignments


def _lock_assignment(assignment: Assignment, actor) -> Assignment:
    """The assignment, locked after its annotation, as the annotation services lock them, and checked: the actor
    is its rater and still a rater of the study (annotator.permissions.require_assigned_rater).

    A skip writes a history row that refers to the annotation (which takes a lock on it): locking the
    assignment first would deadlock with an autosave of the same issue, which holds the annotation.
    """
    annotation = (
        Annotation.objects.select_for_update(of=("self", "assignment"))
        .select_related("assignment__study_issue__study")
        .annotate(rater_role_held=rater_role_held(study="assignment__study_issue__study", user="assignment__rater"))
        .get(assignment_id=assignment.pk)
    )
    locked = annotation.assignment
    require_assigned_rater(
        actor, locked.study_issue.study, rater_id=locked.rater_id, rater_role_held=annotation.rater_role_held
    )
    locked.annotation = annotation
    return locked


@transaction.atomic
def assignment_skip(*, assignment: Assignment, actor, reason: str) -> Assignment:
    """The rater sets an issue aside, saying why; it leaves their queue of open work."""
    reason = reason.strip()
    if not reason:
        raise DomainError("Say why you skip this issue, so the study owner can act on it.", field="reason")
    locked = _lock_assignment(assignment, actor)
    if locked.status == Assignment.Status.SUBMITTED:
        raise ConflictError("This issue is already submitted; it cannot be skipped.")
    old = locked.status
    locked.status = Assignment.Status.SKIPPED
    locked.skip_reason = reason[:500]
    locked.save(update_fields=["status", "skip_reason"])
    rater_progress_move(assignment=locked, old=old, new=locked.status)
    annotation = locked.annotation
    AnnotationHistory.objects.create(
        annotation=annotation,
        actor=actor,
        action=AnnotationHistory.Action.SKIP,
        version=annotation.version,
        after={"skip_reason": locked.skip_reason},
    )
    return locked


@transaction.atomic
def assignment_unskip(*, assignment: Assignment, actor) -> Assignment:
    """Back into the queue: drafted if the rater had started, else assigned."""
    locked = _lock_assignment(assignment, actor)
    if locked.status != Assignment.Status.SKIPPED:
        return locked
    locked.status = Assignment.Status.DRAFTED if locked.started_at else Assignment.Status.ASSIGNED
    locked.skip_reason = ""
    locked.save(update_fields=["status", "skip_reason"])
    rater_progress_move(assignment=locked, old=Assignment.Status.SKIPPED, new=locked.status)
    return locked
