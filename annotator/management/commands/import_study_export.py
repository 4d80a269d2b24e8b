"""python manage.py import_study_export <package.zip> [--name NAME] [--owner USERNAME] [--user USERNAME]

It runs as --user (or, without it, as --owner) and may then do only what that user may do on the site: import
a study, and load a taxonomy that is not here yet only as a taxonomy maintainer. With neither it runs as the
system.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.services.exports.importing import study_export_import
from annotator.services.imports import import_user_get
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
        parser.add_argument("--owner", default="", help="username of the new study's owner (run as, without --user)")
        parser.add_argument(
            "--user",
            default="",
            help="run as this user, with their permissions (a new taxonomy needs a taxonomy maintainer); "
            "default: --owner, else the system",
        )

    def handle(self, *args, **options):
        path = Path(options["package"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        try:
            owner = import_user_get(username=options["owner"])
            user = import_user_get(username=options["user"])
            result = study_export_import(path=path, name=options["name"] or None, owner=owner, actor=user or owner)
        except TemplateError as exc:
            raise CommandError(f"The package's taxonomy could not be loaded: {exc}") from None
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(self.style.SUCCESS(f"imported {result.summary()}"))
