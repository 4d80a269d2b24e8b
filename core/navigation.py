"""Which parts of the navigation a signed-in user may use, worked out once at sign-in and kept in the session.

Every page shows only the links its viewer's site roles allow (study owners import issues; study owners and
taxonomy maintainers keep the repositories' component rules). Reading the roles at sign-in keeps the user's
groups out of every request: API calls and pages load the session's user as Django does, with nothing added.
Roles changed later show in the navigation at the next sign-in; the pages and services check the role itself
on every request, so a stale link leads to a 403 that says why.
"""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from core.permissions import can_edit_components, can_manage_imports

NAV_SESSION_KEY = "nav"


@receiver(user_logged_in)
def remember_navigation(sender, request, user, **kwargs) -> None:
    if request is not None and hasattr(request, "session"):
        request.session[NAV_SESSION_KEY] = {
            "imports": can_manage_imports(user),
            "components": can_edit_components(user),
        }
