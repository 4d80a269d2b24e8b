"""Study roles: owner, rater, adjudicator (per study), plus site staff who may see every study.

Blindness rule: raters only ever see their own labels; owners, adjudicators and staff see all.
"""

from django.contrib.auth.models import AnonymousUser
from rest_framework.permissions import BasePermission

from annotator.models import Study, StudyMember

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


class IsStudyMember(BasePermission):
    """Object permission for a Study; non-members are answered 404 by the selectors before this."""

    def has_object_permission(self, request, view, obj) -> bool:
        return can_view_study(request.user, obj)
