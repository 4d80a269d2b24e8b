from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0018_values_from_proposal"),
    ]

    operations = [
        migrations.AlterField(
            model_name="importjob",
            name="kind",
            field=models.CharField(
                choices=[
                    ("file", "File"),
                    ("github", "GitHub"),
                    ("sheets", "Spreadsheets"),
                    ("sheet_read", "Spreadsheet reading"),
                ],
                max_length=10,
            ),
        ),
    ]
