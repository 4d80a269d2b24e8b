"""Reading a rater's work. Every query here is scoped to the rater: blindness cannot be forgotten by a view."""

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, Q, QuerySet, Sum
from django.http import Http404

from annotator.models import Annotation, Assignment, Comment, RaterProgress, Study
from annotator.permissions import can_see_all_labels
from taxonomy.models import Category, Dimension

OPEN_STATUSES = (Assignment.Status.ASSIGNED, Assignment.Status.DRAFTED)
PROGRESS_COUNTERS = {"assigned", "drafted", "submitted", "skipped"}  # RaterProgress fields, one per status


def assignments_for_rater(*, rater, study: Study) -> QuerySet[Assignment]:
    return (
        Assignment.objects.filter(rater=rater, study_issue__study=study)
        .select_related("study_issue__issue__repository", "study_issue__round", "annotation")
        .order_by("study_issue__position")
    )


# Columns no list of assignments shows: a page of 100 would otherwise carry 100 issue bodies and raw JSON.
LIST_DEFERRED = (
    "study_issue__issue__body",
    "study_issue__issue__raw",
    "study_issue__issue__repository__sync_state",
    "study_issue__round__filters",
)


def assignment_rows_for_rater(*, rater, study: Study) -> QuerySet[Assignment]:
    """The rater's assignments for queues and lists (no issue bodies)."""
    return assignments_for_rater(rater=rater, study=study).defer(*LIST_DEFERRED)


def assignment_next_for_rater(*, rater, study: Study) -> Assignment | None:
    """The rater's first unfinished assignment by position (drafts and fresh ones alike).

    Filters and orders on the assignment's own study/position copies: one range scan of
    assignment_open_queue_idx, however much of the queue is done.
    """
    return (
        assignment_rows_for_rater(rater=rater, study=study)
        .filter(study=study, status__in=OPEN_STATUSES)
        .order_by("position")
        .first()
    )


def assignment_get_for_rater(*, rater, study: Study, pk: int) -> Assignment:
    assignment = assignments_for_rater(rater=rater, study=study).filter(pk=pk).first()
    if assignment is None:
        raise Http404("No such assignment in your queue.")
    return assignment


def rater_progress(*, rater, study: Study) -> list[dict[str, Any]]:
    """Done / total per round for this rater: a few counter rows (RaterProgress), not a count of the queue."""
    rows = (
        RaterProgress.objects.filter(study=study, rater=rater)
        .order_by("round__number")
        .values_list("round__number", "round__kind", "assigned", "drafted", "submitted", "skipped")
    )
    return [
        {
            "study_issue__round__number": number,
            "study_issue__round__kind": kind,
            "total": assigned + drafted + submitted + skipped,
            "done": submitted,
            "skipped": skipped,
        }
        for number, kind, assigned, drafted, submitted, skipped in rows
        if assigned + drafted + submitted + skipped
    ]


def rater_assignment_count(*, rater, study: Study, status: str | None = None) -> int:
    """How many assignments the rater has in the study (optionally in one status), from the counters."""
    statuses = [status] if status else [choice.value for choice in Assignment.Status]
    if any(name not in PROGRESS_COUNTERS for name in statuses):
        return 0
    totals = RaterProgress.objects.filter(study=study, rater=rater).aggregate(**{name: Sum(name) for name in statuses})
    return sum(value or 0 for value in totals.values())


def assignment_page_for_rater(
    *, rater, study: Study, status: str | None = None, after: int | None = None, limit: int = 50
) -> tuple[list[Assignment], int | None]:
    """One page of the rater's assignments in queue order, after queue position `after` (keyset).

    Reads `limit + 1` rows of the (rater, study, position) index from where the last page ended, so a
    page costs the same at position 99,900 as at 0. Returns the page and the position to continue
    after (None on the last page).
    """
    rows = assignment_rows_for_rater(rater=rater, study=study).filter(study=study)
    if status:
        rows = rows.filter(status=status)
    if after is not None:
        rows = rows.filter(position__gt=after)
    page = list(rows.order_by("position")[: limit + 1])
    if len(page) > limit:
        return page[:limit], page[limit - 1].position
    return page, None


def rater_queue(*, rater, study: Study, recent: int = 50) -> dict[str, Any]:
    """The queue page: progress this round, the next issue, my drafts, skipped and submitted issues."""
    rounds = rater_progress(rater=rater, study=study)
    upcoming = assignment_next_for_rater(rater=rater, study=study)
    current = None
    if upcoming is not None:
        current = next(r for r in rounds if r["study_issue__round__number"] == upcoming.study_issue.round.number)
    elif rounds:
        current = rounds[-1]
    mine = assignment_rows_for_rater(rater=rater, study=study)
    return {
        "rounds": rounds,
        "current": current,
        "next": upcoming,
        "drafts": list(mine.filter(status=Assignment.Status.DRAFTED)[:recent]),
        "skipped": list(mine.filter(status=Assignment.Status.SKIPPED)[:recent]),
        "submitted": list(mine.filter(status=Assignment.Status.SUBMITTED).order_by("-submitted_at")[:recent]),
    }


def annotation_get_for_user(*, user, pk: int) -> Annotation:
    """An annotation its rater may read, and so may the study's owners, adjudicators and staff; else 404."""
    annotation = (
        Annotation.objects.select_related(
            "assignment__rater", "assignment__study_issue__study", "assignment__study_issue__issue"
        )
        .prefetch_related(Prefetch("values", queryset=_values_queryset()))
        .filter(pk=pk)
        .first()
    )
    if annotation is None:
        raise Http404("No such annotation.")
    if annotation.assignment.rater_id == user.pk:
        return annotation
    if can_see_all_labels(user, annotation.assignment.study_issue.study):
        return annotation
    raise Http404("No such annotation.")


def annotation_get_for_change(*, user, pk: int) -> Annotation:
    """An annotation about to be changed, if the user may see it (404 otherwise, as annotation_get_for_user).

    Reads only the annotation and its assignment (the autosave path: the service locks and re-reads
    what it writes); anyone but the rater is then refused by the service with a 403.
    """
    annotation = Annotation.objects.select_related("assignment").filter(pk=pk).order_by().first()
    if annotation is None:
        raise Http404("No such annotation.")
    if annotation.assignment.rater_id == user.pk:
        return annotation
    assignment = annotation.assignment
    if can_see_all_labels(user, assignment.study if assignment.study_id else assignment.study_issue.study):
        return annotation
    raise Http404("No such annotation.")


def _values_queryset():
    from annotator.models import AnnotationValue

    return AnnotationValue.objects.select_related("dimension").order_by("dimension__order", "category_id")


def annotation_values(annotation: Annotation) -> dict[str, list[int]]:
    """Category ids per dimension key (uses the prefetched values when present)."""
    values: dict[str, list[int]] = {}
    for value in annotation.values.all():
        values.setdefault(value.dimension.key, []).append(value.category_id)
    return values


@dataclass
class PickerOption:
    category: Category
    depth: int
    selected: bool
    path: str


@dataclass
class Picker:
    dimension: Dimension
    options: list[PickerOption]
    proposal: str


def _tree(categories: list[Category], selected: set[int]) -> list[PickerOption]:
    children: dict[int | None, list[Category]] = {}
    for category in categories:
        children.setdefault(category.parent_id, []).append(category)
    known = {category.pk for category in categories}
    roots = [c for c in categories if c.parent_id is None or c.parent_id not in known]
    options: list[PickerOption] = []

    def walk(node: Category, depth: int, trail: list[str]) -> None:
        path = " › ".join([*trail, node.name])
        options.append(PickerOption(category=node, depth=min(depth, 5), selected=node.pk in selected, path=path))
        for child in children.get(node.pk, []):
            walk(child, depth + 1, [*trail, node.name])

    for root in roots:
        walk(root, 0, [])
    return options


def study_dimensions(*, study: Study) -> list[Dimension]:
    dimensions = list(study.dimensions.order_by("order", "key"))
    if not dimensions:
        dimensions = list(Dimension.objects.filter(version=study.taxonomy_version_id).order_by("order", "key"))
    return dimensions


def labelling_page(*, assignment: Assignment) -> dict[str, Any]:
    """Everything the labelling page shows, in a fixed number of queries whatever the study's size."""
    study = assignment.study_issue.study
    annotation = (
        Annotation.objects.prefetch_related(Prefetch("values", queryset=_values_queryset()))
        .select_related("assignment")
        .get(assignment=assignment)
    )
    chosen = annotation_values(annotation)
    selected = {pk for ids in chosen.values() for pk in ids}
    dimensions = study_dimensions(study=study)
    categories: dict[int, list[Category]] = {}
    for category in Category.objects.filter(dimension__in=dimensions).exclude(Q(deprecated=True) & ~Q(pk__in=selected)):
        categories.setdefault(category.dimension_id, []).append(category)
    pickers = [
        Picker(
            dimension=dimension,
            options=_tree(categories.get(dimension.pk, []), selected),
            proposal=annotation.proposals.get(dimension.key, ""),
        )
        for dimension in dimensions
    ]
    issue = assignment.study_issue.issue
    comments = list(Comment.objects.filter(issue=issue).order_by("created", "id"))
    # Previous / next in queue order over the assignment's own (study, position) copies: one index probe each.
    mine = Assignment.objects.filter(rater=assignment.rater_id, study=study)
    position = assignment.study_issue.position
    previous_id = mine.filter(position__lt=position).order_by("-position").values_list("pk", flat=True).first()
    next_id = mine.filter(position__gt=position).order_by("position").values_list("pk", flat=True).first()
    round_number = assignment.study_issue.round.number
    progress = next(
        (
            row
            for row in rater_progress(rater=assignment.rater_id, study=study)
            if row["study_issue__round__number"] == round_number
        ),
        None,
    )
    return {
        "study": study,
        "progress": progress,
        "assignment": assignment,
        "annotation": annotation,
        "issue": issue,
        "comments": comments,
        "pickers": pickers,
        "values": chosen,
        "previous_id": previous_id,
        "next_id": next_id,
    }
