"""Sign-in and the account pages a person uses without the admin."""

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.password_validation import password_validators_help_texts
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse_lazy
from django.views.decorators.cache import never_cache
from rest_framework.authtoken.models import Token

from .forms import AccountPasswordChangeForm, LimitedAuthenticationForm, refused_sign_in_answer


class LoginView(auth_views.LoginView):
    """Django's login page with attempt limits: past a limit it answers 429 and says when to try again."""

    form_class = LimitedAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form) -> HttpResponse:
        return refused_sign_in_answer(super().form_invalid(form), form)


@never_cache
@login_required
def account(request: HttpRequest) -> HttpResponse:
    token = Token.objects.filter(user=request.user).only("created").first()
    return render(request, "account/account.html", {"token": token})


class PasswordChangeView(auth_views.PasswordChangeView):
    """Change one's own password; the session stays signed in, the API token is revoked."""

    form_class = AccountPasswordChangeForm
    template_name = "account/password_change.html"
    success_url = reverse_lazy("account")

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "password_help": password_validators_help_texts()}

    def form_valid(self, form) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(
            self.request, "Password changed. Your API token was revoked: create a new one if your scripts need it."
        )
        return response
