"""Account forms: sign-in with attempt limits (the login page and the admin's), password change."""

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm

from .errors import RateLimitedError
from .login_limits import login_attempt_start, login_attempt_succeeded
from .network import client_address
from .tokens import user_password_set


class _LimitedSignInMixin:
    """Counts each attempt before the password is checked; over the limit, refuses and says until when."""

    refused: RateLimitedError | None = None

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return super().clean()
        address = client_address(self.request) if self.request is not None else None
        try:
            login_attempt_start(username=username, address=address)
        except RateLimitedError as exc:
            self.refused = exc
            raise forms.ValidationError(exc.message, code="rate_limited") from None
        cleaned = super().clean()
        login_attempt_succeeded(username=username, address=address)
        return cleaned


def refused_sign_in_answer(response, form):
    """A sign-in page's answer: 429 with Retry-After when the form refused the attempt for its limit."""
    refused = getattr(form, "refused", None)
    if refused is not None:
        response.status_code = 429
        response.headers["Retry-After"] = str(refused.retry_after)
    return response


class LimitedAuthenticationForm(_LimitedSignInMixin, AuthenticationForm):
    pass


class LimitedAdminAuthenticationForm(_LimitedSignInMixin, AdminAuthenticationForm):
    pass


class AccountPasswordChangeForm(PasswordChangeForm):
    """Django's password change (old password, new one twice, the validators), saved through the service."""

    def save(self, commit: bool = True):
        user_password_set(user=self.user, password=self.cleaned_data["new_password1"])
        return self.user
