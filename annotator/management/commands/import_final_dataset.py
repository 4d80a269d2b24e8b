"""python manage.py import_final_dataset <file.xlsx> --study NAME [--taxonomy gu-tosem23] [--sheet faults]"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotator.importers.label_cleaning import LabelMappingError, read_label_mapping
from annotator.services.final_dataset_import import final_dataset_import
from core.errors import DomainError


class Command(BaseCommand):
    help = (
        "Import a published final dataset (one row per issue with its final labels, no raters) as a study, "
        "e.g. final_categories.xlsx of Liu, Gu et al. (TOSEM 2023) onto the gu-tosem23 taxonomy."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the .xlsx (or .csv) file")
        parser.add_argument("--study", required=True, help="name of the new study")
        parser.add_argument("--taxonomy", default="gu-tosem23", help="slug of a shipped template, or a template file")
        parser.add_argument("--sheet", default="faults", help="the worksheet to read")
        parser.add_argument(
            "--labels", default="", help="label mapping CSV (dimension,from,to); ';' in 'to' names several categories"
        )
        parser.add_argument("--owner", default="", help="username of the study's owner")

    def handle(self, *args, **options):
        owner = None
        if options["owner"]:
            owner = get_user_model().objects.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"No user '{options['owner']}'.")
        mapping = None
        if options["labels"]:
            try:
                mapping = read_label_mapping(options["labels"])
            except (OSError, LabelMappingError) as exc:
                raise CommandError(f"--labels: {exc}") from None
        try:
            result = final_dataset_import(
                path=Path(options["file"]),
                study_name=options["study"],
                taxonomy=options["taxonomy"],
                sheet=options["sheet"],
                label_mapping=mapping,
                owner=owner,
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(self.style.SUCCESS(f"imported {result.summary()}"))
