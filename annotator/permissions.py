"""Study roles: owner, rater, adjudicator (per study), plus site staff who may see every study.

Blindness rule: raters only ever see their own labels; owners, adjudicators and staff see all.
"""

from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef
from rest_framework.permissions import BasePermission

from annotator.models import Study, StudyMember
from core.errors import NotFoundError, PermissionDeniedError

OWNER = StudyMember.Role.OWNER
RATER = StudyMember.Role.RATER
ADJUDICATOR = StudyMember.Role.ADJUDICATOR


def study_roles(user, study: Study) -> set[str]:
    """The user's roles in the study (cached on the study object for the request)."""
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return set()
    cache = study.__dict__.setdefault("_roles_cache", {})
    if user.pk not in cache:
        cache[user.pk] = set(StudyMember.objects.filter(study=study, user=user).values_list("role", flat=True))
    return cache[user.pk]


def can_view_study(user, study: Study) -> bool:
    return bool(user.is_authenticated and (user.is_staff or study_roles(user, study)))


def can_manage_study(user, study: Study) -> bool:
    return bool(user.is_authenticated and (user.is_staff or OWNER in study_roles(user, study)))


def can_see_all_labels(user, study: Study) -> bool:
    """Owners, adjudicators and staff see every rater's labels; a rater never sees another's."""
    roles = study_roles(user, study)
    return bool(user.is_authenticated and (user.is_staff or OWNER in roles or ADJUDICATOR in roles))


def is_rater(user, study: Study) -> bool:
    return RATER in study_roles(user, study)


def rater_role_held(*, study: str, user: str) -> Exists:
    """Whether a user still holds the rater role of a study, as a query expression over the outer query's fields
    (e.g. study="assignment__study_issue__study", user="assignment__rater"): a locking read brings it along."""
    return Exists(StudyMember.objects.filter(study=OuterRef(study), user=OuterRef(user), role=RATER))


def require_assigned_rater(user, study: Study, *, rater_id: int, rater_role_held: bool) -> None:
    """Only the rater an assignment names, while still a rater of its study, may write its labels or skip it.

    Anyone else is answered as the selectors would answer them: 404 unless they may see the study's labels (another
    rater must not learn the annotation exists). A rater removed from the study, or moved to another role, keeps
    the work already done (it stays in the study) but writes no more: 404, or 403 while they can still see the study.
    """
    if rater_id != user.pk:
        if can_see_all_labels(user, study):
            raise PermissionDeniedError("Only the rater assigned to this issue can change this annotation.")
        raise NotFoundError("No such annotation.")
    if not rater_role_held:
        if can_view_study(user, study):
            raise PermissionDeniedError("You are no longer a rater in this study; your earlier work is kept.")
        raise NotFoundError("No such annotation.")


class IsStudyMember(BasePermission):
    """Object permission for a Study; non-members are answered 404 by the selectors before this."""

    def has_object_permission(self, request, view, obj) -> bool:
        return can_view_study(request.user, obj)
