"""python manage.py import_study_export <package.zip> [--name NAME] [--owner USERNAME]"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotator.services.exports.importing import study_export_import
from core.errors import DomainError
from taxonomy.errors import TemplateError


class Command(BaseCommand):
    help = (
        "Recreate a study from its replication package: the taxonomy, the issues, the sample, every rater's "
        "labels (raters as inactive accounts named R1, R2, ...) and the final labels. Checksums are verified first."
    )

    def add_arguments(self, parser):
        parser.add_argument("package", help="the replication package (.zip) from a study's export page")
        parser.add_argument("--name", default="", help="name of the new study (default: the exported study's name)")
        parser.add_argument("--owner", default="", help="username of the new study's owner")

    def handle(self, *args, **options):
        path = Path(options["package"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        owner = None
        if options["owner"]:
            owner = get_user_model().objects.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"No user '{options['owner']}'; create the account first or leave out --owner.")
        try:
            result = study_export_import(path=path, name=options["name"] or None, owner=owner)
        except TemplateError as exc:
            raise CommandError(f"The package's taxonomy could not be loaded: {exc}") from None
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(self.style.SUCCESS(f"imported {result.summary()}"))
