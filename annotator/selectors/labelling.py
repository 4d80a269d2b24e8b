"""Reading a rater's work. Every query here is scoped to the rater: blindness cannot be forgotten by a view."""

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.models import Annotation, Assignment, Comment, Study
from annotator.permissions import can_see_all_labels
from taxonomy.models import Category, Dimension

OPEN_STATUSES = (Assignment.Status.ASSIGNED, Assignment.Status.DRAFTED)


def assignments_for_rater(*, rater, study: Study) -> QuerySet[Assignment]:
    return (
        Assignment.objects.filter(rater=rater, study_issue__study=study)
        .select_related("study_issue__issue__repository", "study_issue__round", "annotation")
        .order_by("study_issue__position")
    )


def assignment_next_for_rater(*, rater, study: Study) -> Assignment | None:
    """The rater's first unfinished assignment by position (drafts and fresh ones alike)."""
    return assignments_for_rater(rater=rater, study=study).filter(status__in=OPEN_STATUSES).first()


def assignment_get_for_rater(*, rater, study: Study, pk: int) -> Assignment:
    assignment = assignments_for_rater(rater=rater, study=study).filter(pk=pk).first()
    if assignment is None:
        raise Http404("No such assignment in your queue.")
    return assignment


def rater_progress(*, rater, study: Study) -> list[dict[str, Any]]:
    """Done / total per round for this rater (one aggregate query)."""
    return list(
        Assignment.objects.filter(rater=rater, study_issue__study=study)
        .values("study_issue__round__number", "study_issue__round__kind")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
            skipped=Count("id", filter=Q(status=Assignment.Status.SKIPPED)),
        )
        .order_by("study_issue__round__number")
    )


def rater_queue(*, rater, study: Study, recent: int = 50) -> dict[str, Any]:
    """The queue page: progress this round, the next issue, my drafts, skipped and submitted issues."""
    rounds = rater_progress(rater=rater, study=study)
    upcoming = assignment_next_for_rater(rater=rater, study=study)
    current = None
    if upcoming is not None:
        current = next(r for r in rounds if r["study_issue__round__number"] == upcoming.study_issue.round.number)
    elif rounds:
        current = rounds[-1]
    mine = assignments_for_rater(rater=rater, study=study)
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
    mine = Assignment.objects.filter(rater=assignment.rater_id, study_issue__study=study)
    position = assignment.study_issue.position
    previous_id = (
        mine.filter(study_issue__position__lt=position).order_by("-study_issue__position").values_list("pk", flat=True)
    ).first()
    next_id = (
        mine.filter(study_issue__position__gt=position).order_by("study_issue__position").values_list("pk", flat=True)
    ).first()
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
