"""PostgreSQL refuses to change a study's recorded sample frame once written.

A paper states which issues a study was drawn from; the services only ever add frames (a changed frame is
the next number). The guard keeps any other writer (a script, a raw SQL fix, a future service) from rewriting
one. SQLite has no such guard, and there the services are the only writers.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION annotator_study_frame_frozen() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a recorded sample frame is never changed: record a new one'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER annotator_studyframe_frozen BEFORE UPDATE ON annotator_studyframe
    FOR EACH ROW EXECUTE FUNCTION annotator_study_frame_frozen();
"""

DROP = """
DROP TRIGGER IF EXISTS annotator_studyframe_frozen ON annotator_studyframe;
DROP FUNCTION IF EXISTS annotator_study_frame_frozen();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0021_fix_details")]

    operations = [migrations.RunPython(create, drop)]
