"""PostgreSQL refuses to change a first submission once written (its labels included).

Reliability "before discussion" is computed from these rows; the services only ever insert them. The guard
keeps any other writer (a script, a raw SQL fix, a future service) from rewriting what a paper reported.
Deleting stays possible only as Django's PROTECT rules allow (a first submission protects its annotation and
categories); SQLite has no such guard, and there the services are the only writers.
"""

from django.db import migrations

TABLES = ("annotator_firstsubmission", "annotator_firstsubmissionvalue")

CREATE = """
CREATE OR REPLACE FUNCTION annotator_first_submission_frozen() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a first submission is never changed (table %)', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
""" + "".join(
    f"CREATE TRIGGER {table}_frozen BEFORE UPDATE ON {table} "
    f"FOR EACH ROW EXECUTE FUNCTION annotator_first_submission_frozen();\n"
    for table in TABLES
)

DROP = "".join(f"DROP TRIGGER IF EXISTS {table}_frozen ON {table};\n" for table in TABLES) + (
    "DROP FUNCTION IF EXISTS annotator_first_submission_frozen();"
)


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0014_study_dimensions_decided")]

    operations = [migrations.RunPython(create, drop)]
