"""Reading a rater's work. Every query here is scoped to the rater: blindness cannot be forgotten by a view."""

from dataclasses import dataclass
from typing import Any

from django.db.models import F, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum, prefetch_related_objects
from django.http import Http404

from annotator.models import (
    Annotation,
    AnnotationHistory,
    Assignment,
    Comment,
    RaterProgress,
    Study,
    StudyMember,
    StudyRound,
)
from annotator.permissions import can_see_all_labels, is_rater
from annotator.selectors.studies import study_dimensions as study_dimensions
from annotator.selectors.studies import study_get_for_user
from taxonomy.models import Category, Dimension

OPEN_STATUSES = (Assignment.Status.ASSIGNED, Assignment.Status.DRAFTED)
PROGRESS_COUNTERS = {"assigned", "drafted", "submitted", "skipped"}  # RaterProgress fields, one per status


def study_get_with_roles(*, user, pk: int) -> Study:
    """The study (as study_get_for_user: 404 unless visible) with the user's roles read in the same query.

    The rater's pages and API check the role on every request; reading the membership rows with their
    study (and nothing else: these pages do not show the taxonomy) saves a query and most of the cost of
    another. The roles go where annotator.permissions keeps them for the request.
    """
    memberships = list(StudyMember.objects.filter(user=user, study_id=pk).select_related("study").order_by())
    if not memberships:
        return study_get_for_user(user=user, pk=pk)  # staff see every study; anyone else gets the 404
    study = memberships[0].study
    study.__dict__.setdefault("_roles_cache", {})[user.pk] = {membership.role for membership in memberships}
    return study


def assignments_for_rater(*, rater, study: Study) -> QuerySet[Assignment]:
    """The rater's assignments in the study with their issue, repository and annotation.

    Not their round: a page that shows it has the round's number from the rater's progress counters, and each
    table joined here widens what PostgreSQL searches when planning the query.
    """
    return (
        Assignment.objects.filter(rater=rater, study_issue__study=study)
        .select_related("study_issue__issue__repository", "annotation")
        .order_by("study_issue__position")
    )


def assignment_next_for_rater(*, rater, study: Study) -> Assignment | None:
    """The rater's first unfinished assignment by position (drafts and fresh ones alike), as a row of
    "my assignments" (see assignment_page_for_rater), or None.

    Filters and orders on the assignment's own study/position copies: one range scan of
    assignment_open_queue_idx, however much of the queue is done. Someone no longer a rater of the study gets
    None: their open assignments stay in the study, but they may not label them (require_assigned_rater).
    """
    if not is_rater(rater, study):
        return None
    return _page_rows(Assignment.objects.filter(rater=rater, study=study, status__in=OPEN_STATUSES)).first()


def assignment_at_position(*, rater, study: Study, position: int) -> Assignment | None:
    """The rater's assignment at a queue position of the study, or None (not theirs, or no such position)."""
    return Assignment.objects.filter(rater=rater, study=study, position=position).only("pk").first()


def assignment_get_for_rater(*, rater, study: Study, pk: int) -> Assignment:
    assignment = assignments_for_rater(rater=rater, study=study).filter(pk=pk).first()
    if assignment is None:
        raise Http404("No such assignment in your queue.")
    assignment.study_issue.study = study  # the study it was filtered by: not read again
    return assignment


def rater_progress(*, rater, study: Study) -> list[dict[str, Any]]:
    """Done / total per round for this rater: a few counter rows (RaterProgress), not a count of the queue."""
    rows = (
        RaterProgress.objects.filter(study=study, rater=rater)
        .order_by("round__number")
        .values_list("round_id", "round__number", "round__kind", "assigned", "drafted", "submitted", "skipped")
    )
    return [
        {
            "round_id": round_id,
            "study_issue__round__number": number,
            "study_issue__round__kind": kind,
            "total": assigned + drafted + submitted + skipped,
            "done": submitted,
            "skipped": skipped,
            "drafted": drafted,
        }
        for round_id, number, kind, assigned, drafted, submitted, skipped in rows
        if assigned + drafted + submitted + skipped
    ]


def current_round_progress(rounds: list[dict[str, Any]], upcoming: Assignment | None) -> dict[str, Any] | None:
    """Of `rater_progress`'s rows, the round of the rater's next issue (a row read with its `round_pk`), or the
    last round once the queue is done; None without rounds."""
    if upcoming is not None:
        return next((row for row in rounds if row["round_id"] == upcoming.round_pk), None)
    return rounds[-1] if rounds else None


def rater_assignment_count(*, rater, study: Study, status: str | None = None) -> int:
    """How many assignments the rater has in the study (optionally in one status), from the counters."""
    statuses = [status] if status else [choice.value for choice in Assignment.Status]
    if any(name not in PROGRESS_COUNTERS for name in statuses):
        return 0
    totals = RaterProgress.objects.filter(study=study, rater=rater).aggregate(**{name: Sum(name) for name in statuses})
    return sum(value or 0 for value in totals.values())


# What a row of "my assignments" shows (RaterAssignmentOutputSerializer, the "All my issues" page): no issue
# bodies or raw JSON. The row is the assignment with the few columns of its round, issue, repository and
# annotation read as annotations of the same query, not as related objects (select_related): a page of 100
# rows then builds 100 model objects instead of 600, which cost more than the query itself. The round's number
# comes through a subquery on its primary key rather than one more join: PostgreSQL plans the subquery on its own,
# while each table added to the join widens the planner's search, which cost more than running the query.
ROW_FIELDS = ("study", "position", "status", "skip_reason", "assigned_at", "started_at", "submitted_at")
ROW_COLUMNS = {
    "round_pk": F("study_issue__round_id"),
    "round_number": Subquery(
        StudyRound.objects.filter(pk=OuterRef("study_issue__round_id")).order_by().values("number")
    ),
    "issue_pk": F("study_issue__issue_id"),
    "issue_title": F("study_issue__issue__title"),
    "issue_url": F("study_issue__issue__url"),
    "issue_number": F("study_issue__issue__number"),
    "issue_state": F("study_issue__issue__state"),
    "repository_owner": F("study_issue__issue__repository__owner"),
    "repository_name": F("study_issue__issue__repository__name"),
    "annotation_pk": F("annotation__id"),
    "annotation_version": F("annotation__version"),
}


def _page_rows(assignments: QuerySet[Assignment]) -> QuerySet[Assignment]:
    return assignments.only(*ROW_FIELDS).annotate(**ROW_COLUMNS).order_by("position")


def assignment_page_for_rater(
    *,
    rater,
    study: Study,
    status: str | None = None,
    after: int | None = None,
    limit: int = 50,
    title: str = "",
) -> tuple[list[Assignment], int | None]:
    """One page of the rater's assignments in queue order, after queue position `after` (keyset).

    Reads `limit + 1` entries of the (rater, study, position) index from where the last page ended,
    so a page costs the same at position 99,900 as at 0. Returns the assignments and the position to
    continue after (None on the last page). `title`: only issues whose title contains it (any case).
    """
    rows = Assignment.objects.filter(rater=rater, study=study)
    if status:
        rows = rows.filter(status=status)
    if title.strip():
        rows = rows.filter(study_issue__issue__title__icontains=title.strip())
    if after is not None:
        rows = rows.filter(position__gt=after)
    page = list(_page_rows(rows)[: limit + 1])
    if len(page) > limit:
        return page[:limit], page[limit - 1].position
    return page, None


def _queue_list(rater, study: Study, status: str, order: str, recent: int) -> list[Assignment]:
    """Up to `recent` of the rater's assignments in one status, with the few fields the queue page shows (the
    issue's title and whether the annotation is frozen as annotations, as on a page of rows)."""
    return list(
        Assignment.objects.filter(rater=rater, study=study, status=status)
        .only("status", "skip_reason", "submitted_at", "position")
        .annotate(issue_title=ROW_COLUMNS["issue_title"], annotation_frozen=F("annotation__frozen"))
        .order_by(order)[:recent]
    )


QUEUE_RECENT = 50  # drafts and skipped issues the queue page lists
QUEUE_RECENT_SUBMITTED = 20  # the latest submits; "All my issues" lists every one


def rater_queue(
    *, rater, study: Study, recent: int = QUEUE_RECENT, recent_submitted: int | None = None
) -> dict[str, Any]:
    """The queue page: progress this round, the next issue, my drafts, skipped and latest submitted issues.

    A list the progress counters say is empty is not queried at all.
    """
    rounds = rater_progress(rater=rater, study=study)
    upcoming = (
        Assignment.objects.filter(rater=rater, study=study, status__in=OPEN_STATUSES)
        .only("pk")
        .annotate(issue_title=ROW_COLUMNS["issue_title"], round_pk=ROW_COLUMNS["round_pk"])
        .order_by("position")
        .first()
    )
    current = current_round_progress(rounds, upcoming)
    drafted = sum(row["drafted"] for row in rounds)
    skipped = sum(row["skipped"] for row in rounds)
    submitted = sum(row["done"] for row in rounds)
    by_position = "position"
    recent_submitted = QUEUE_RECENT_SUBMITTED if recent_submitted is None else recent_submitted
    return {
        "rounds": rounds,
        "current": current,
        "next": upcoming,
        "drafts": _queue_list(rater, study, Assignment.Status.DRAFTED, by_position, recent) if drafted else [],
        "skipped": _queue_list(rater, study, Assignment.Status.SKIPPED, by_position, recent) if skipped else [],
        "submitted": _queue_list(rater, study, Assignment.Status.SUBMITTED, "-submitted_at", recent_submitted)
        if submitted
        else [],
        "submitted_count": submitted,
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
    show_code: bool = True  # False when the code only repeats the name: the picker then leaves it out


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def code_adds_to_name(code: str, name: str) -> bool:
    """Whether a category's code says more than its name (`communication-setup` for "communication setup" does not).

    The code's last dotted segment is compared, letters and digits only: a code that repeats its parent's
    code before a dot (`function-support.keras-multi-gpu`) repeats the tree the picker already shows.
    """
    last = _letters(code.rsplit(".", 1)[-1])
    return bool(last) and last not in _letters(name)


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
        options.append(
            PickerOption(
                category=node,
                depth=min(depth, 5),
                selected=node.pk in selected,
                path=path,
                show_code=code_adds_to_name(node.code, node.name),
            )
        )
        for child in children.get(node.pk, []):
            walk(child, depth + 1, [*trail, node.name])

    for root in roots:
        walk(root, 0, [])
    return options


def labelling_page(*, assignment: Assignment, posted: Any = None) -> dict[str, Any]:
    """Everything the labelling page shows, in a fixed number of queries whatever the study's size.

    The assignment comes as assignment_get_for_rater reads it: its annotation is the one read with it, and only
    the annotation's labels are read here.

    `posted` (an `AnnotationInput` the service refused) is shown instead of the stored labels, proposals,
    note and confidence: the rater's input is kept while they read why it was refused.
    """
    study = assignment.study_issue.study
    annotation = assignment.annotation
    prefetch_related_objects([annotation], Prefetch("values", queryset=_values_queryset()))
    chosen = annotation_values(annotation)
    if posted is not None:  # in memory only: nothing is saved
        chosen = {key: [int(pk) for pk in ids] for key, ids in posted.values.items() if ids}
        annotation.proposals = dict(posted.proposals)
        annotation.note, annotation.confidence = posted.note, posted.confidence
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
    round_id = assignment.study_issue.round_id
    progress = next(
        (row for row in rater_progress(rater=assignment.rater_id, study=study) if row["round_id"] == round_id), None
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
        "sent_back_reason": _sent_back_reason(annotation),
    }


def _sent_back_reason(annotation: Annotation) -> str | None:
    """Why the rater is asked to look again, when the issue was reopened after a submit (else None).

    Only annotations that were submitted and reopened can have one, so fresh work costs no query.
    """
    if annotation.version <= 1 or annotation.submitted_at is not None or annotation.frozen:
        return None
    last = (
        AnnotationHistory.objects.filter(
            annotation=annotation, action__in=[AnnotationHistory.Action.SUBMIT, AnnotationHistory.Action.REOPEN]
        )
        .order_by("-at", "-id")
        .values_list("action", "after")
        .first()
    )
    if last is None or last[0] != AnnotationHistory.Action.REOPEN:
        return None
    return (last[1] or {}).get("reason") or "The issue was reopened for discussion."
