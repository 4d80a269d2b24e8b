"""Sign-in and the account pages a person uses without the admin."""

from django.contrib.auth import views as auth_views
from django.http import HttpResponse

from .forms import LimitedAuthenticationForm


class LoginView(auth_views.LoginView):
    """Django's login page with attempt limits: past a limit it answers 429 and says when to try again."""

    form_class = LimitedAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form) -> HttpResponse:
        response = super().form_invalid(form)
        if form.refused is not None:
            response.status_code = 429
            response.headers["Retry-After"] = str(form.refused.retry_after)
        return response
