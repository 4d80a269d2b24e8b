"""Reading studies: which a user may see, and the owner's dashboard (bounded aggregate queries)."""

from collections import Counter, OrderedDict
from datetime import datetime, timedelta
from threading import Lock
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import TruncDate
from django.http import Http404
from django.utils import timezone

from annotator.models import Annotation, Assignment, RaterProgress, Study, StudyIssue, StudyMember, StudyRound
from core.errors import NotFoundError
from taxonomy.models import Dimension

SUBMITTED = Assignment.Status.SUBMITTED


def studies_visible_to(*, user) -> QuerySet[Study]:
    studies = Study.objects.select_related("taxonomy_version__taxonomy").order_by("name")
    if user.is_staff:
        return studies
    return studies.filter(pk__in=StudyMember.objects.filter(user=user).values("study_id"))


def studies_owned_by(*, user) -> QuerySet[Study]:
    """Studies the user may add issues to: those they own (every study, for staff), not published."""
    studies = Study.objects.exclude(phase=Study.Phase.PUBLISHED).only("id", "name").order_by("name")
    if user.is_staff:
        return studies
    owned = StudyMember.objects.filter(user=user, role=StudyMember.Role.OWNER).values("study_id")
    return studies.filter(pk__in=owned)


def study_get_for_user(*, user, pk: int) -> Study:
    """The study if the user is a member (or staff); 404 otherwise, so its existence is not revealed."""
    study = studies_visible_to(user=user).filter(pk=pk).first()
    if study is None:
        raise Http404("No such study.")
    return study


def study_list_rows(*, user) -> list[dict[str, Any]]:
    """The study list: each study with the user's roles and their own progress (never others')."""
    studies = list(studies_visible_to(user=user))
    roles: dict[int, list[str]] = {}
    for study_id, role in StudyMember.objects.filter(user=user, study__in=studies).values_list("study_id", "role"):
        roles.setdefault(study_id, []).append(role)
    mine = {
        row["study_issue__study_id"]: row
        for row in Assignment.objects.filter(rater=user, study_issue__study__in=studies)
        .values("study_issue__study_id")
        .annotate(total=Count("id"), done=Count("id", filter=Q(status=SUBMITTED)))
    }
    return [
        {"study": study, "roles": sorted(roles.get(study.pk, [])), "progress": mine.get(study.pk)} for study in studies
    ]


def study_dimensions(*, study: Study) -> list[Dimension]:
    """The dimensions the study labels, in the taxonomy's order (decided at creation, never empty)."""
    return list(study.dimensions.order_by("order", "key"))


_dimension_ids: "OrderedDict[tuple[int, datetime], tuple[int, ...]]" = OrderedDict()
_dimension_ids_lock = Lock()
DIMENSION_IDS_CACHE_SIZE = 256


def study_dimension_ids(*, study: Study) -> tuple[int, ...]:
    """The ids of the dimensions the study labels, kept per process for each state of the study.

    Every save of a label checks it, and the set rarely changes: any change of it moves the study's
    `updated_at` (annotator/signals.py), so the cache key (id, updated_at) never hands out an old set.
    """
    key = (study.pk, study.updated_at)
    with _dimension_ids_lock:
        found = _dimension_ids.get(key)
        if found is not None:
            _dimension_ids.move_to_end(key)
            return found
    through = Study.dimensions.through.objects.filter(study_id=study.pk).order_by("dimension_id")
    found = tuple(through.values_list("dimension_id", flat=True))
    with _dimension_ids_lock:
        _dimension_ids[key] = found
        while len(_dimension_ids) > DIMENSION_IDS_CACHE_SIZE:
            _dimension_ids.popitem(last=False)
    return found


def study_members(*, study: Study) -> QuerySet[StudyMember]:
    return StudyMember.objects.filter(study=study).select_related("user").order_by("role", "user__username")


def study_rounds(*, study: Study) -> QuerySet[StudyRound]:
    return StudyRound.objects.filter(study=study).select_related("frame").order_by("number")


def _median_time(study: Study) -> int | None:
    submitted = Annotation.objects.filter(assignment__study_issue__study=study, submitted_at__isnull=False).order_by(
        "time_spent_seconds"
    )
    n = submitted.count()
    if not n:
        return None
    values = list(submitted.values_list("time_spent_seconds", flat=True)[(n - 1) // 2 : n // 2 + 1])
    return round(sum(values) / len(values))


def study_proposals(*, study: Study, limit: int = 100) -> list[dict[str, Any]]:
    """Proposed new categories with counts (owners only: they reveal what raters wrote)."""
    rows = (
        Annotation.objects.filter(assignment__study_issue__study=study)
        .exclude(proposals={})
        .values_list("proposals", flat=True)
    )
    counts: Counter = Counter()
    shown: dict[tuple[str, str], str] = {}
    for proposals in rows.iterator(chunk_size=2000):
        for key, text in (proposals or {}).items():
            norm = (key, " ".join(str(text).split()).lower())
            counts[norm] += 1
            shown.setdefault(norm, str(text).strip())
    return [
        {"dimension": key, "text": shown[(key, norm)], "count": n}
        for (key, norm), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]
    ]


def study_dashboard(*, study: Study, days: int = 30) -> dict[str, Any]:
    """Progress per rater and round, issues done by all raters, issues unanimous in the raters' first
    submissions, throughput per day, median time."""
    assignments = Assignment.objects.filter(study_issue__study=study)
    # From the raters' progress counters (kept by the services), not a count over every assignment.
    per_rater = [
        {**row, "total": row["assigned"] + row["drafted"] + row["submitted"] + row["skipped"]}
        for row in RaterProgress.objects.filter(study=study)
        .annotate(study_issue__round__number=F("round__number"))
        .values(
            "rater_id",
            "rater__username",
            "rater__display_name",
            "study_issue__round__number",
            "assigned",
            "drafted",
            "submitted",
            "skipped",
        )
        .order_by("study_issue__round__number", "rater__username")
    ]
    per_round = {
        row["round__number"]: row
        for row in StudyIssue.objects.filter(study=study).values("round__number").annotate(issues=Count("id"))
    }
    complete = (
        StudyIssue.objects.filter(study=study)
        # Done by all of its raters: raters_per_issue of a double-coded issue, the one of a single-coded issue.
        .annotate(done=Count("assignments", filter=Q(assignments__status=SUBMITTED)), planned=Count("assignments"))
        .filter(planned__gt=0, done__gte=F("planned"))
        .count()
    )
    since = timezone.now() - timedelta(days=days)
    throughput = list(
        assignments.filter(submitted_at__gte=since)
        .annotate(day=TruncDate("submitted_at"))
        .values("day")
        .annotate(submitted=Count("id"))
        .order_by("day")
    )
    skipped = list(
        assignments.filter(status=Assignment.Status.SKIPPED)
        .select_related("rater", "study_issue__issue")
        .order_by("study_issue__position")[:50]
    )
    return {
        "per_rater": per_rater,
        "per_round": per_round,
        "issues_total": sum(row["issues"] for row in per_round.values()),
        "issues_complete": complete,
        "throughput": throughput,
        "median_seconds": _median_time(study),
        "skipped": skipped,
        "proposals": study_proposals(study=study),
        "independent": _independent_unanimous(study),
    }


def _independent_unanimous(study: Study) -> dict[str, int]:
    """Issues whose raters agreed on everything in their first, independent submissions (a discussion after a
    send-back does not make an issue unanimous), from the cached agreement report."""
    # Imported here: the agreement services read the study through this module's selectors.
    from annotator.services.agreement import agreement_report

    return agreement_report(study=study)["independent_unanimous"]


STUDY_ISSUES_PAGE = 50


def study_issue_page(*, study: Study, after: int | None = None, size: int | None = None) -> dict[str, Any]:
    """One page of the study's sampled issues in queue order (keyset on position: cost per page, not per
    study), each with its round, whether it is double-coded and its final label's status."""
    size = size or STUDY_ISSUES_PAGE
    rows = list(
        StudyIssue.objects.filter(study=study, **({"position__gt": after} if after is not None else {}))
        .select_related("issue__repository", "round", "resolution")
        .only(
            "position",
            "double_coded",
            "issue__id",
            "issue__number",
            "issue__title",
            "issue__repository__owner",
            "issue__repository__name",
            "issue__repository__display_name",
            "round__number",
            "round__created_at",
            "resolution__status",
            "resolution__method",
        )
        .order_by("position")[: size + 1]
    )
    return {
        "rows": rows[:size],
        "next_after": rows[size - 1].position if len(rows) > size else None,
        "after": after,
    }


def active_users_by_username(*, usernames: list[str]) -> list:
    """The active accounts of these usernames, in the order named (repeats once); NotFoundError names the first
    username no active account has."""
    wanted = list(dict.fromkeys(name.strip() for name in usernames))
    found = {u.username.lower(): u for u in get_user_model().objects.filter(is_active=True, username__in=wanted)}
    missing = [name for name in wanted if name.lower() not in found]
    if missing:
        raise NotFoundError(f"No active account has the username '{missing[0][:150]}'.")
    return [found[name.lower()] for name in wanted]
