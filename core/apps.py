from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.urls import register_converter


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from . import navigation  # noqa: F401 - connects the sign-in receiver
        from .converters import IdConverter

        # Registered before any URL module is imported (URLconfs load after every app is ready).
        register_converter(IdConverter, "id")


class TaxonomistAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with our site: its login answers 429 past the sign-in limits, like the login page."""

    default = False  # named in INSTALLED_APPS; "core" itself stays CoreConfig
    default_site = "core.admin_site.TaxonomistAdminSite"
