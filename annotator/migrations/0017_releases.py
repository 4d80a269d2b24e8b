"""Releases: what a study published, frozen. PostgreSQL refuses to update or delete a release, its files and its
visibility changes, so that whatever was published once can be read again unchanged (the services only insert).
SQLite has no such guard; there the services are the only writers.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


TABLES = ("annotator_release", "annotator_releasefile", "annotator_releasevisibilitychange")

CREATE = """
CREATE OR REPLACE FUNCTION annotator_release_frozen() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a release is never changed or deleted (table %)', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
""" + "".join(
    f"CREATE TRIGGER {table}_frozen BEFORE UPDATE OR DELETE ON {table} "
    f"FOR EACH ROW EXECUTE FUNCTION annotator_release_frozen();\n"
    for table in TABLES
)

DROP = "".join(f"DROP TRIGGER IF EXISTS {table}_frozen ON {table};\n" for table in TABLES) + (
    "DROP FUNCTION IF EXISTS annotator_release_frozen();"
)


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0016_resolution_values_rows"),
        ("taxonomy", "0003_category_tree_guard"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Release",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField()),
                ("change_note", models.TextField(blank=True)),
                ("content_sha256", models.CharField(max_length=64)),
                ("figures", models.JSONField(default=dict)),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="releases", to="annotator.study"
                    ),
                ),
                (
                    "taxonomy_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="taxonomy.taxonomyversion"
                    ),
                ),
            ],
            options={
                "ordering": ["study", "number"],
            },
        ),
        migrations.CreateModel(
            name="ReleaseFile",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                ("content_type", models.CharField(max_length=100)),
                ("content", models.BinaryField()),
                ("size", models.PositiveBigIntegerField()),
                ("sha256", models.CharField(max_length=64)),
                (
                    "release",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="files", to="annotator.release"
                    ),
                ),
            ],
            options={
                "ordering": ["release", "name"],
            },
        ),
        migrations.CreateModel(
            name="ReleaseVisibilityChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("visible", models.BooleanField()),
                ("at", models.DateTimeField(auto_now_add=True)),
                ("reason", models.TextField(blank=True)),
                (
                    "actor",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "release",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="visibility_changes",
                        to="annotator.release",
                    ),
                ),
            ],
            options={
                "ordering": ["release", "at", "id"],
            },
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.UniqueConstraint(fields=("study", "number"), name="release_number_unique_per_study"),
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.CheckConstraint(condition=models.Q(("number__gte", 1)), name="release_number_positive"),
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.CheckConstraint(
                condition=models.Q(("number", 1), models.Q(("change_note", ""), _negated=True), _connector="OR"),
                name="release_change_note_after_first",
            ),
        ),
        migrations.AddConstraint(
            model_name="releasefile",
            constraint=models.UniqueConstraint(fields=("release", "name"), name="release_file_unique_name"),
        ),
        migrations.AddIndex(
            model_name="releasevisibilitychange",
            index=models.Index(fields=["release", "-id"], name="release_visibility_latest"),
        ),
        migrations.RunPython(create, drop),
    ]
