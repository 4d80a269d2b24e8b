"""The authentication backend: Django's, loading a signed-in user's site roles in the same query.

Every page shows only the navigation its viewer may use (study owners import issues, taxonomy
maintainers edit taxonomies), so each page needs the viewer's site roles. Reading them as two EXISTS
columns of the query that loads the session's user costs no extra round trip; ``core.permissions``
uses them when they are there and asks the database otherwise (API tokens, users loaded elsewhere).
"""

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef

from .permissions import SITE_ROLE_ATTRIBUTES


def with_site_roles(queryset):
    """``queryset`` of users annotated with one boolean per site role (``core.permissions``)."""
    return queryset.annotate(
        **{
            attribute: Exists(Group.objects.filter(name=group, user=OuterRef("pk")))
            for group, attribute in SITE_ROLE_ATTRIBUTES.items()
        }
    )


class SiteRolesBackend(ModelBackend):
    def get_user(self, user_id):
        from django.contrib.auth import get_user_model

        users = with_site_roles(get_user_model()._default_manager.all())
        try:
            user = users.get(pk=user_id)
        except users.model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
