"""Permission classes of the API. Study-level scoping lives in the selectors (they answer 404 to outsiders)."""

from rest_framework.permissions import BasePermission

from core.permissions import can_manage_imports


class CanManageImports(BasePermission):
    """Study owners (members of the "Study owners" group) and staff; everyone else is answered 403."""

    message = "Only study owners and staff can see imports; ask a site administrator to add you to 'Study owners'."

    def has_permission(self, request, view) -> bool:
        return can_manage_imports(request.user)
