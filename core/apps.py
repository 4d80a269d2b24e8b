from django.apps import AppConfig
from django.urls import register_converter


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from .converters import IdConverter

        # Registered before any URL module is imported (URLconfs load after every app is ready).
        register_converter(IdConverter, "id")
