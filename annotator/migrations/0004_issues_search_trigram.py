"""Trigram indexes so that searching issue titles and bodies stays fast on PostgreSQL.

The issue list searches with `icontains`, which PostgreSQL runs as UPPER(col) LIKE UPPER('%term%');
a GIN trigram index on exactly that expression turns a full scan into an index lookup.
SQLite (and a PostgreSQL role that may not create the extension) keeps working without it.
"""

import logging

from django.db import DatabaseError, migrations, transaction

logger = logging.getLogger(__name__)

INDEXES = {
    "issue_title_trgm_idx": "upper(title) gin_trgm_ops",
    "issue_body_trgm_idx": "upper(body) gin_trgm_ops",
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DatabaseError as exc:
        logger.warning("pg_trgm is not available (%s); issue search will scan the table.", exc)
        return
    for name, expression in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON annotator_issue USING gin ({expression})")
    # Statistics on the indexed expressions come only from ANALYZE; without them the planner
    # guesses a term is rare and sorts every match instead of walking the date index.
    schema_editor.execute("ANALYZE annotator_issue")


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0003_studies"),
    ]

    operations = [
        migrations.RunPython(create_indexes, drop_indexes, elidable=False),
    ]
