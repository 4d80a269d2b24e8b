from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .forms import LimitedAdminAuthenticationForm
from .models import User

# The admin's sign-in counts attempts like the login page (the same limits, per account and address).
admin.site.login_form = LimitedAdminAuthenticationForm


@admin.register(User)
class TaxonomistUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Taxonomist", {"fields": ("display_name",)}))
