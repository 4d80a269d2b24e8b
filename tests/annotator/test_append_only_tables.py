"""Every table research depends on has its database guard against updates, on the database the suite runs on.

The guards are triggers (annotator/migrations/0015, 0017, 0022, 0023). A later migration that rebuilds one of
these tables on SQLite (Django does so to alter a column) would drop its trigger without a word: this
finds it.
"""

import pytest
from django.apps import apps
from django.db import connection

from annotator.models import (
    FirstSubmission,
    FirstSubmissionValue,
    Release,
    ReleaseFile,
    ReleaseVisibilityChange,
    StudyFrame,
)
from core.models import AuditEntry

pytestmark = pytest.mark.django_db

AUDIT_ENTRIES = sorted(
    (model for model in apps.get_models() if issubclass(model, AuditEntry)), key=lambda model: model.__name__
)
APPEND_ONLY = [
    FirstSubmission,
    FirstSubmissionValue,
    StudyFrame,
    Release,
    ReleaseFile,
    ReleaseVisibilityChange,
    *AUDIT_ENTRIES,
]
UPDATE = 16  # PostgreSQL's pg_trigger.tgtype bit for a trigger that fires on UPDATE


def update_triggers(table: str) -> list[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal AND tgtype & %s = %s",
                [table, UPDATE, UPDATE],
            )
        else:
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s AND sql LIKE %s",
                [table, "%BEFORE UPDATE ON%"],
            )
        return [name for (name,) in cursor.fetchall()]


def test_the_history_of_annotations_and_decisions_is_among_the_guarded_tables():
    assert {model.__name__ for model in AUDIT_ENTRIES} >= {"AnnotationHistory", "ResolutionHistory"}


@pytest.mark.parametrize("model", APPEND_ONLY, ids=lambda model: model.__name__)
def test_an_append_only_table_has_its_update_guard(model):
    assert update_triggers(model._meta.db_table) == [f"{model._meta.db_table}_frozen"]
