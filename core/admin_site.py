"""The admin site: Django's, with the sign-in limits of the login page (the same counts, the same 429)."""

from django.contrib import admin

from .forms import LimitedAdminAuthenticationForm, refused_sign_in_answer


class TaxonomistAdminSite(admin.AdminSite):
    login_form = LimitedAdminAuthenticationForm

    def login(self, request, extra_context=None):
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        return refused_sign_in_answer(response, form)
