"""The database refuses to rewrite the records research depends on, on SQLite as on PostgreSQL.

PostgreSQL already refuses to change a first submission (0015), a release (0017) or a recorded sample frame
(0022). SQLite, the embedded default a small team labels on, gets the same guards here, and both databases
now refuse to change an entry of an annotation's or a decision's history: the history is what a reviewer
reads to see who labelled or decided what, when, and what it was before. The services only ever insert
these rows.

Deleting stays as it was: possible only as Django's PROTECT rules allow, except that PostgreSQL refuses to
delete a release (0017). SQLite gets no delete guards: Django empties a SQLite database table by table with
DELETE (PostgreSQL's TRUNCATE fires no row triggers), and a guard there would make `flush` and the test
database's teardown fail.
"""

from django.db import migrations

HISTORY_TABLES = ("annotator_annotationhistory", "annotator_resolutionhistory")

POSTGRES_CREATE = """
CREATE OR REPLACE FUNCTION annotator_history_frozen() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a history entry is never changed (table %)', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
""" + "".join(
    f"CREATE TRIGGER {table}_frozen BEFORE UPDATE ON {table} "
    f"FOR EACH ROW EXECUTE FUNCTION annotator_history_frozen();\n"
    for table in HISTORY_TABLES
)

POSTGRES_DROP = "".join(f"DROP TRIGGER IF EXISTS {table}_frozen ON {table};\n" for table in HISTORY_TABLES) + (
    "DROP FUNCTION IF EXISTS annotator_history_frozen();"
)

# (table, what the message calls its rows): every table PostgreSQL guards against updates, and the history.
SQLITE_GUARDED = (
    ("annotator_firstsubmission", "a first submission"),
    ("annotator_firstsubmissionvalue", "a first submission"),
    ("annotator_studyframe", "a recorded sample frame"),
    ("annotator_release", "a release"),
    ("annotator_releasefile", "a release"),
    ("annotator_releasevisibilitychange", "a release"),
    *((table, "a history entry") for table in HISTORY_TABLES),
)


def _sqlite_create(table: str, what: str) -> str:
    # SQLite has no trigger functions: each trigger raises its own message (the same words as PostgreSQL's).
    return (
        f"CREATE TRIGGER {table}_frozen BEFORE UPDATE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{what} is never changed (table {table})'); END;"
    )


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_CREATE, params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for table, what in SQLITE_GUARDED:
            schema_editor.execute(_sqlite_create(table, what), params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_DROP, params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for table, _ in SQLITE_GUARDED:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_frozen;", params=None)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0022_study_frames_append_only")]

    operations = [migrations.RunPython(create, drop)]
