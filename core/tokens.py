"""API tokens and passwords: the services that issue and revoke the one token a user may have.

A token stops working when its owner's password changes (from the account page, the admin or
`manage.py changepassword`): `RevokeTokensOnPasswordChange` is listed in AUTH_PASSWORD_VALIDATORS
because Django calls every validator's `password_changed` after any saved password change, on every
surface, so no path that changes a password can forget to revoke.
"""

from django.db import transaction
from rest_framework.authtoken.models import Token


@transaction.atomic
def user_password_set(*, user, password: str) -> None:
    """Set a new password; saving it revokes the user's API token (RevokeTokensOnPasswordChange)."""
    user.set_password(password)
    user.save(update_fields=["password"])


@transaction.atomic
def token_issue(*, user) -> Token:
    """A fresh token for the user; any previous one stops working at once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


@transaction.atomic
def token_revoke(*, user) -> bool:
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


class RevokeTokensOnPasswordChange:
    """Not a rule on passwords: Django's hook into every password change (see the module's docstring)."""

    def validate(self, password: str, user=None) -> None:
        return None

    def password_changed(self, password: str, user=None) -> None:
        if user is not None and user.pk is not None:
            token_revoke(user=user)

    def get_help_text(self) -> str:
        return "Changing your password also revokes your API token."
