"""Celery tasks of the annotator app (autodiscovered as `annotator.tasks`)."""

from . import agreement, exports, file_imports, github_imports, jobs, sheets_uploads  # noqa: F401  (registers the tasks)
