"""python manage.py clean_sheet_uploads [--hours N]"""

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand

from annotator.services.sheets_import.uploads import sheets_uploads_clean


class Command(BaseCommand):
    help = (
        "Delete the spreadsheets uploaded to import wizards that were left unfinished for longer than "
        "SHEETS_UPLOAD_RETENTION_HOURS (Celery beat runs this every hour)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--hours",
            type=int,
            default=settings.SHEETS_UPLOAD_RETENTION_HOURS,
            help="delete uploads older than this many hours",
        )

    def handle(self, *args, **options):
        removed = sheets_uploads_clean(older_than=timedelta(hours=options["hours"]))
        self.stdout.write(self.style.SUCCESS(f"deleted the uploads of {removed} unfinished spreadsheet imports"))
