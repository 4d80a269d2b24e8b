from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User

# The admin site itself (with the sign-in limits of the login page) is core.admin_site.TaxonomistAdminSite.


@admin.register(User)
class TaxonomistUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Taxonomist", {"fields": ("display_name",)}))
