"""Final labels become rows with protected foreign keys: Resolution.values (JSON ids) -> ResolutionValue.

The copy refuses to lose a value: an id that names no category of its dimension stops the migration with the
study, the issue, the dimension and the id, and nothing is changed (the migration is one transaction). A
dimension decided empty (``[]``) keeps its key in ``methods``, which is what says a dimension is decided.
"""

import django.db.models.deletion
from django.db import migrations, models


class FinalLabelLost(Exception):
    """A final label names a category that does not exist (or belongs to another dimension)."""


def _where(resolution) -> str:
    study_issue = resolution.study_issue
    return (
        f"study '{study_issue.study.name}' (id {study_issue.study_id}), issue #{study_issue.position} "
        f"{study_issue.issue.url} (resolution {resolution.pk})"
    )


def copy_values_to_rows(apps, schema_editor):
    Resolution = apps.get_model("annotator", "Resolution")
    ResolutionValue = apps.get_model("annotator", "ResolutionValue")
    Category = apps.get_model("taxonomy", "Category")
    resolutions = Resolution.objects.select_related("study_issue__study", "study_issue__issue").order_by("pk")
    rows = []
    for resolution in resolutions.iterator(chunk_size=2000):
        values = resolution.values or {}
        if not isinstance(values, dict):
            raise FinalLabelLost(f"{_where(resolution)}: values are not a mapping of dimension keys: {values!r}.")
        wanted = set()
        for key, ids in values.items():
            if not isinstance(ids, list):
                raise FinalLabelLost(f"{_where(resolution)}, dimension '{key}': {ids!r} is not a list of ids.")
            for pk in ids:
                try:
                    wanted.add(int(pk))
                except (TypeError, ValueError):
                    raise FinalLabelLost(f"{_where(resolution)}, dimension '{key}': {pk!r} is no category id.") from None
        categories = Category.objects.select_related("dimension").in_bulk(wanted)
        methods = dict(resolution.methods or {})
        for key, ids in sorted(values.items()):
            if key not in methods:  # decided (it has a value), so it needs its method to stay decided
                methods[key] = resolution.method or "unanimous"
            for pk in dict.fromkeys(int(pk) for pk in ids):
                category = categories.get(pk)
                if category is None:
                    raise FinalLabelLost(
                        f"{_where(resolution)}, dimension '{key}': category id {pk} does not exist; "
                        "restore that category (or correct the final label) before migrating."
                    )
                if category.dimension.key != key:
                    raise FinalLabelLost(
                        f"{_where(resolution)}, dimension '{key}': category id {pk} ('{category.name}') belongs "
                        f"to dimension '{category.dimension.key}'; correct the final label before migrating."
                    )
                rows.append(
                    ResolutionValue(resolution_id=resolution.pk, dimension_id=category.dimension_id, category_id=pk)
                )
        if methods != (resolution.methods or {}):
            Resolution.objects.filter(pk=resolution.pk).update(methods=methods)
        if len(rows) >= 5000:
            ResolutionValue.objects.bulk_create(rows)
            rows = []
    ResolutionValue.objects.bulk_create(rows)
    if schema_editor.connection.vendor == "postgresql":
        # Check the new rows' deferred foreign keys now: PostgreSQL refuses the ALTER TABLE that follows while
        # the table has pending trigger events.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def copy_rows_to_values(apps, schema_editor):
    Resolution = apps.get_model("annotator", "Resolution")
    ResolutionValue = apps.get_model("annotator", "ResolutionValue")
    if ResolutionValue.objects.filter(category__isnull=True).exists():
        raise FinalLabelLost(
            "Some final labels are raters' proposals, which the JSON values cannot hold; "
            "decide them as categories before migrating back."
        )
    by_resolution: dict[int, dict[str, list[int]]] = {}
    for resolution_id, key, category_id in ResolutionValue.objects.values_list(
        "resolution_id", "dimension__key", "category_id"
    ).order_by("resolution_id", "dimension__key", "category_id"):
        by_resolution.setdefault(resolution_id, {}).setdefault(key, []).append(category_id)
    for resolution in Resolution.objects.order_by("pk").iterator(chunk_size=2000):
        values = {key: [] for key in (resolution.methods or {}) if key != "excluded"}
        values.update(by_resolution.get(resolution.pk, {}))
        if values:
            Resolution.objects.filter(pk=resolution.pk).update(values=dict(sorted(values.items())))


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0015_first_submissions_append_only"),
        ("taxonomy", "0003_category_tree_guard"),
    ]

    operations = [
        migrations.CreateModel(
            name="ResolutionValue",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("proposal", models.CharField(blank=True, max_length=500)),
                (
                    "category",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="resolution_values",
                        to="taxonomy.category",
                    ),
                ),
                (
                    "dimension",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="taxonomy.dimension"
                    ),
                ),
                (
                    "proposal_annotation",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="settled_proposals",
                        to="annotator.annotation",
                    ),
                ),
                (
                    "resolution",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="final_values",
                        to="annotator.resolution",
                    ),
                ),
            ],
            options={
                "ordering": ["resolution", "dimension", "category", "pk"],
                "verbose_name": "final label",
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(
                                ("category__isnull", False), ("proposal_annotation__isnull", True), ("proposal", "")
                            ),
                            models.Q(
                                ("category__isnull", True),
                                ("proposal_annotation__isnull", False),
                                models.Q(("proposal", ""), _negated=True),
                            ),
                            _connector="OR",
                        ),
                        name="resolution_value_category_or_proposal",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("category__isnull", False)),
                        fields=("resolution", "dimension", "category"),
                        name="resolution_value_unique_category",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("category__isnull", True)),
                        fields=("resolution", "dimension"),
                        name="resolution_value_one_proposal",
                    ),
                ],
            },
        ),
        migrations.RunPython(copy_values_to_rows, copy_rows_to_values),
        migrations.RemoveField(model_name="resolution", name="values"),
    ]
