"""Reads behind the resource API: scoping by role and query shape, a fixed number of queries per page.

Kept next to the API because only it reads these shapes; the scoping rules are the app's
(annotator.permissions), so a page and an endpoint can never disagree on who sees what.
"""

from collections import Counter

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.models import (
    Annotation,
    AnnotationValue,
    Assignment,
    Repository,
    Resolution,
    Study,
    StudyIssue,
    StudyMember,
)
from annotator.permissions import can_see_all_labels, can_view_study, study_roles
from annotator.selectors.pseudonyms import sees_rater_names

PUBLISHED = Study.Phase.PUBLISHED
ALL_LABELS_ROLES = {StudyMember.Role.OWNER, StudyMember.Role.ADJUDICATOR}
ROLE_PREFIX = {StudyMember.Role.RATER: "R", StudyMember.Role.OWNER: "O", StudyMember.Role.ADJUDICATOR: "A"}


# --- repositories ---------------------------------------------------------------------------------------


def repositories_with_counts() -> QuerySet[Repository]:
    return Repository.objects.annotate(issue_count=Count("issues")).defer("sync_state").order_by("owner", "name", "id")


# --- studies --------------------------------------------------------------------------------------------


def studies_for_api(*, user) -> QuerySet[Study]:
    """Studies the user is a member of (every study for staff), plus every published study."""
    studies = Study.objects.select_related("taxonomy_version__taxonomy").prefetch_related(
        Prefetch("members", queryset=StudyMember.objects.select_related("user").order_by("added_at", "id")),
        Prefetch("dimensions"),
    )
    if not user.is_staff:
        mine = StudyMember.objects.filter(user=user).values("study_id")
        studies = studies.filter(Q(pk__in=mine) | Q(phase=PUBLISHED))
    return studies.order_by("name", "id")


def study_get_for_api(*, user, pk: int) -> Study:
    """A study the user may read through the API; 404 otherwise (its existence is not revealed)."""
    study = studies_for_api(user=user).filter(pk=pk).first()
    if study is None:
        raise Http404("No such study, or it is not visible to you.")
    return study


def study_progress(*, study_ids: list[int], rater=None) -> dict[int, dict[str, int | None]]:
    """Progress counts per study in three aggregate queries, whatever the number of studies.

    With `rater`: only that rater's assignments, and no resolution counts (None), which depend on the others.
    """
    progress: dict[int, dict[str, int | None]] = {
        pk: {"issues": 0, "assignments": 0, "submitted": 0, "skipped": 0, "resolved": 0, "pending": 0}
        for pk in study_ids
    }
    for row in StudyIssue.objects.filter(study_id__in=study_ids).values("study_id").annotate(n=Count("id")):
        progress[row["study_id"]]["issues"] = row["n"]
    assignments = Assignment.objects.filter(study_issue__study_id__in=study_ids)
    if rater is not None:
        assignments = assignments.filter(rater=rater)
    counts = assignments.values("study_issue__study_id").annotate(
        n=Count("id"),
        submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        skipped=Count("id", filter=Q(status=Assignment.Status.SKIPPED)),
    )
    for row in counts:
        entry = progress[row["study_issue__study_id"]]
        entry.update(assignments=row["n"], submitted=row["submitted"], skipped=row["skipped"])
    if rater is not None:
        for entry in progress.values():
            entry.update(resolved=None, pending=None)
        return progress
    resolutions = (
        Resolution.objects.filter(study_issue__study_id__in=study_ids)
        .values("study_issue__study_id")
        .annotate(
            resolved=Count("id", filter=Q(status=Resolution.Status.RESOLVED)),
            pending=Count("id", filter=~Q(status=Resolution.Status.RESOLVED)),
        )
    )
    for row in resolutions:
        progress[row["study_issue__study_id"]].update(resolved=row["resolved"], pending=row["pending"])
    return progress


def study_progress_for(*, user, studies: list[Study]) -> dict[int, dict]:
    """Progress counts per study as `user` may see them, in a bounded number of queries.

    Whole-study counts (scope "study") for those who may read the labels (see labels_readable). A rater of a
    blind, unpublished study (scope "mine") sees only their own assignments: how many issues are resolved or
    wait for adjudication would tell them whether the other rater agreed with them, so those are null.
    """
    # Roles from the prefetched members (studies_for_api): no query per study.
    readable = [s.pk for s in studies if labels_readable(user=user, study=s, roles=_roles(user, s))]
    own = [s.pk for s in studies if s.pk not in set(readable)]
    progress = {pk: {"scope": "study", **entry} for pk, entry in study_progress(study_ids=readable).items()}
    if own:
        mine = study_progress(study_ids=own, rater=user)
        progress.update({pk: {"scope": "mine", **entry} for pk, entry in mine.items()})
    return progress


def _roles(user, study: Study) -> set[str]:
    return {member.role for member in study.members.all() if member.user_id == user.pk}


def study_member_rows(*, study: Study, user) -> list[dict[str, str]]:
    """Members with their roles; people who are not members (or staff) see R1, A1, O1 instead of names.

    Pseudonyms are numbered per role in the order members joined, so they stay the same across requests.
    Under anonymous adjudication, members who may not see the raters' names (see sees_rater_names) see
    the raters as the same R1, R2 as on the adjudication pages; the rater themselves stays named to them.
    """
    named = can_view_study(user, study)
    raters_named = named and sees_rater_names(user, study)
    counters: Counter = Counter()
    rows = []
    for member in study.members.all():  # prefetched in join order
        counters[member.role] += 1
        pseudonym = f"{ROLE_PREFIX.get(member.role, 'M')}{counters[member.role]}"
        if member.role == StudyMember.Role.RATER and not raters_named and member.user_id != user.pk:
            name = pseudonym
        else:
            name = str(member.user) if named else pseudonym
        rows.append({"name": name, "role": member.role})
    return rows


def labels_readable(*, user, study: Study, roles: set[str] | None = None) -> bool:
    """Who may see label counts: owners, adjudicators and staff; members of a non-blind study; anyone once published.

    `roles`: the user's roles in the study when the caller has them already (e.g. from prefetched members).
    """
    if roles is None:
        if study.phase == PUBLISHED or can_see_all_labels(user, study):
            return True
        return bool(study_roles(user, study)) and not study.blind
    if study.phase == PUBLISHED or (user.is_authenticated and user.is_staff) or roles & ALL_LABELS_ROLES:
        return True
    return bool(roles) and not study.blind


def study_for_label_counts(*, user, pk: int) -> Study:
    study = study_get_for_api(user=user, pk=pk)
    if not labels_readable(user=user, study=study):
        raise PermissionDenied("Label counts stay hidden from raters while the study is blind and unpublished.")
    return study


# --- my annotations -------------------------------------------------------------------------------------


def annotations_of_user(*, user) -> QuerySet[Annotation]:
    """The user's own annotations across studies — never anyone else's, whatever their role."""
    return (
        Annotation.objects.filter(assignment__rater=user)
        .select_related("assignment__rater", "assignment__study_issue")
        .prefetch_related(Prefetch("values", queryset=AnnotationValue.objects.select_related("dimension")))
        .order_by("-updated_at", "-id")
    )
