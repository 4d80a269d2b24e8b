"""The database refuses a category tree with a cycle or a parent in another dimension (PostgreSQL).

The services already refuse such moves; this guard keeps any other writer (a script, a raw SQL fix) from
making subtrees vanish from the category tree. SQLite cannot run a recursive query inside a trigger, so
there the services (the only writers; the admin is read-only) keep the rule.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION taxonomy_category_tree_guard() RETURNS trigger AS $$
BEGIN
    IF NEW.parent_id IS NULL THEN
        RETURN NEW;
    END IF;
    IF NOT EXISTS (
        SELECT 1 FROM taxonomy_category WHERE id = NEW.parent_id AND dimension_id = NEW.dimension_id
    ) THEN
        RAISE EXCEPTION 'category %: its parent % is not in the same dimension', NEW.id, NEW.parent_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF EXISTS (
        WITH RECURSIVE ancestors(id, parent_id) AS (
            SELECT id, parent_id FROM taxonomy_category WHERE id = NEW.parent_id
            UNION
            SELECT c.id, c.parent_id FROM taxonomy_category c JOIN ancestors a ON c.id = a.parent_id
        )
        SELECT 1 FROM ancestors WHERE id = NEW.id
    ) THEN
        RAISE EXCEPTION 'category %: moving it under % would make a cycle', NEW.id, NEW.parent_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER taxonomy_category_tree_guard
    BEFORE INSERT OR UPDATE OF parent_id, dimension_id ON taxonomy_category
    FOR EACH ROW EXECUTE FUNCTION taxonomy_category_tree_guard();
"""

DROP = """
DROP TRIGGER IF EXISTS taxonomy_category_tree_guard ON taxonomy_category;
DROP FUNCTION IF EXISTS taxonomy_category_tree_guard();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("taxonomy", "0002_evolution_lineage")]

    operations = [migrations.RunPython(create, drop)]
