"""The database refuses to change a published taxonomy version: its row, dimensions, categories and lineage.

A paper cites a taxonomy version, studies label against it and releases freeze it; the services refuse every
edit of a published version (taxonomy.services.versions.version_ensure_draft). These guards keep any other
writer (a script, a raw SQL fix, a future service) from rewriting one. Publishing a draft stays possible: it
changes a row that was a draft.

PostgreSQL refuses inserts (checked once per statement, over all its rows: a template or a new draft arrives
in a few bulk INSERTs; bench/taxonomy_guard_bench.py measures what the guards cost), updates and deletes.
SQLite refuses inserts and updates: Django empties a SQLite
table with DELETE (PostgreSQL's TRUNCATE fires no row triggers), and a delete guard there would make `flush`
and the test database's teardown fail.
"""

from django.db import migrations

MESSAGE = "a published taxonomy version is never changed: make a new version"

# A lineage edge names the user who made it, and deleting that user sets it to NULL (SET_NULL): an update of
# that column alone is let through. Every other column of an edge is guarded.
LINEAGE_COLUMNS = (
    "id, version_id, operation, \"group\", dimension_key, from_category_id, to_category_id, from_lineage_id, "
    "to_lineage_id, from_name, to_name, at, note"
)

# (table, how a row finds its version's id, given the row as `row`, the UPDATE that is guarded)
CHILDREN = (
    ("taxonomy_dimension", "{row}.version_id", "UPDATE"),
    ("taxonomy_category", "(SELECT version_id FROM taxonomy_dimension WHERE id = {row}.dimension_id)", "UPDATE"),
    ("taxonomy_categorylineage", "{row}.version_id", f"UPDATE OF {LINEAGE_COLUMNS}"),
)


def _published(version_id: str) -> str:
    # version_id is one of the expressions in CHILDREN above, never a value from outside.
    return f"EXISTS (SELECT 1 FROM taxonomy_taxonomyversion WHERE id = {version_id} AND status = 'published')"  # noqa: S608


def _postgres_create() -> str:
    sql = [
        f"""
CREATE OR REPLACE FUNCTION taxonomy_version_frozen() RETURNS trigger AS $$
BEGIN
    IF OLD.status = 'published' THEN
        RAISE EXCEPTION '{MESSAGE} (table %)', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER taxonomy_taxonomyversion_frozen BEFORE UPDATE OR DELETE ON taxonomy_taxonomyversion
    FOR EACH ROW EXECUTE FUNCTION taxonomy_version_frozen();
"""
    ]
    for table, version_of, update in CHILDREN:
        old, new = _published(version_of.format(row="OLD")), _published(version_of.format(row="NEW"))
        added = _published(version_of.format(row="added"))
        # Inserts are checked once per statement, over all its rows (a template's or a new draft's categories
        # arrive in a few bulk INSERTs); updates and deletes, which are rare, row by row.
        sql.append(f"""
CREATE OR REPLACE FUNCTION {table}_frozen() RETURNS trigger AS $$
BEGIN
    IF {old} OR (TG_OP = 'UPDATE' AND {new}) THEN
        RAISE EXCEPTION '{MESSAGE} (table %)', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {table}_frozen BEFORE {update} OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION {table}_frozen();
CREATE OR REPLACE FUNCTION {table}_frozen_insert() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM added WHERE {added}) THEN
        RAISE EXCEPTION '{MESSAGE} (table %)', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {table}_frozen_insert AFTER INSERT ON {table} REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION {table}_frozen_insert();
""")
    return "".join(sql)


def _postgres_drop() -> str:
    triggers = [("taxonomy_taxonomyversion", "taxonomy_taxonomyversion_frozen")]
    triggers += [(table, f"{table}_{kind}") for table, *_ in CHILDREN for kind in ("frozen", "frozen_insert")]
    functions = ["taxonomy_version_frozen", *(name for table, name in triggers[1:])]
    return "".join(f"DROP TRIGGER IF EXISTS {name} ON {table};\n" for table, name in triggers) + "".join(
        f"DROP FUNCTION IF EXISTS {function}();\n" for function in functions
    )


def _sqlite_triggers() -> list[tuple[str, str]]:
    """(name, CREATE TRIGGER) pairs: SQLite has no trigger functions, and a trigger fires on one event."""
    abort = f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END;"
    triggers = [
        (
            "taxonomy_taxonomyversion_frozen",
            "CREATE TRIGGER taxonomy_taxonomyversion_frozen BEFORE UPDATE ON taxonomy_taxonomyversion "
            f"WHEN OLD.status = 'published' {abort}",
        )
    ]
    for table, version_of, update in CHILDREN:
        old, new = _published(version_of.format(row="OLD")), _published(version_of.format(row="NEW"))
        triggers.append(
            (f"{table}_frozen", f"CREATE TRIGGER {table}_frozen BEFORE {update} ON {table} WHEN {old} OR {new} {abort}")
        )
        triggers.append(
            (
                f"{table}_frozen_insert",
                f"CREATE TRIGGER {table}_frozen_insert BEFORE INSERT ON {table} WHEN {new} {abort}",
            )
        )
    return triggers


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_postgres_create(), params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for _, sql in _sqlite_triggers():
            schema_editor.execute(sql, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_postgres_drop(), params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for name, _ in _sqlite_triggers():
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name};", params=None)


class Migration(migrations.Migration):
    dependencies = [("taxonomy", "0003_category_tree_guard")]

    operations = [migrations.RunPython(create, drop)]
