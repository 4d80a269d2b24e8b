"""A study's dimensions are decided once, at creation: studies that named none get all of their version's.

Until now an empty set meant "every dimension of the version", a rule each reader had to remember (and one
forgot). After this, every study names its dimensions and readers take them as they are.
"""

from django.db import migrations


def decide(apps, schema_editor):
    Study = apps.get_model("annotator", "Study")
    Dimension = apps.get_model("taxonomy", "Dimension")
    for study in Study.objects.filter(dimensions__isnull=True).distinct():
        study.dimensions.set(Dimension.objects.filter(version_id=study.taxonomy_version_id))


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0013_jobs_heartbeat"),
        ("taxonomy", "0003_category_tree_guard"),
    ]

    operations = [migrations.RunPython(decide, migrations.RunPython.noop)]
