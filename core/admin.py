from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class TaxonomistUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Taxonomist", {"fields": ("display_name",)}))
