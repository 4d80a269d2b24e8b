"""The three frameworks of the 2025 study are known out of the box."""

from django.db import migrations

KNOWN = [
    # (owner, name, display name, description, old names)
    ("deepspeedai", "DeepSpeed", "DeepSpeed", "Deep learning optimisation library (ZeRO, pipeline parallelism).",
     [("microsoft", "DeepSpeed")]),
    ("NVIDIA", "Megatron-LM", "Megatron-LM", "Large transformer training with tensor and pipeline parallelism.", []),
    ("hpcaitech", "ColossalAI", "Colossal-AI", "Unified system for large-scale parallel training.", []),
]


def add_known(apps, schema_editor):
    Repository = apps.get_model("annotator", "Repository")
    RepositoryAlias = apps.get_model("annotator", "RepositoryAlias")
    for owner, name, display, description, aliases in KNOWN:
        repo = Repository.objects.filter(host="github.com", owner__iexact=owner, name__iexact=name).first()
        if repo is None:
            repo = Repository.objects.create(
                host="github.com", owner=owner, name=name, display_name=display, description=description
            )
        for old_owner, old_name in aliases:
            if not RepositoryAlias.objects.filter(owner__iexact=old_owner, name__iexact=old_name).exists():
                RepositoryAlias.objects.create(repository=repo, host="github.com", owner=old_owner, name=old_name)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0001_initial")]

    operations = [migrations.RunPython(add_known, migrations.RunPython.noop)]
