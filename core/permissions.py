"""Site-level roles. Study-level roles (owner, rater, adjudicator) live with the studies.

Teams share one instance: a study owner runs their own studies, while the taxonomies every study
labels against are shared, so changing them is a role of its own (taxonomy maintainers).
"""

from django.contrib.auth.models import AnonymousUser

STUDY_OWNERS_GROUP = "Study owners"
TAXONOMY_MAINTAINERS_GROUP = "Taxonomy maintainers"


def _in_group_or_staff(user, group: str) -> bool:
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return user.groups.filter(name=group).exists()


def can_manage_imports(user) -> bool:
    """Study owners (and staff) import issues and set up studies."""
    return _in_group_or_staff(user, STUDY_OWNERS_GROUP)


def can_manage_taxonomies(user) -> bool:
    """Taxonomy maintainers (and staff) edit, draft and publish the shared taxonomies; study owners do not."""
    return _in_group_or_staff(user, TAXONOMY_MAINTAINERS_GROUP)


def can_edit_components(user) -> bool:
    """A repository's component rules shape every study's fix findings: study owners, taxonomy maintainers
    and staff keep them."""
    return can_manage_imports(user) or can_manage_taxonomies(user)
