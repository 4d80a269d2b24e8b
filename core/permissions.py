"""Site-level roles. Study-level roles (owner, rater, adjudicator) live with the studies."""

from django.contrib.auth.models import AnonymousUser

STUDY_OWNERS_GROUP = "Study owners"


def can_manage_imports(user) -> bool:
    """Study owners (and staff) import issues and set up studies."""
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return user.groups.filter(name=STUDY_OWNERS_GROUP).exists()
