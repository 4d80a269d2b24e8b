from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Issues and labelling"

    def ready(self) -> None:
        from annotator import signals  # noqa: F401  (connects the receivers)
