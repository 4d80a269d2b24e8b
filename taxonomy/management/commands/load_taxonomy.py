"""load_taxonomy <slug-or-path> | --all: load taxonomy templates as taxonomy versions."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from taxonomy.models import TaxonomyVersion
from taxonomy.services import shipped_templates, taxonomy_template_load


class Command(BaseCommand):
    help = (
        "Load a taxonomy template (a shipped slug such as gu-tosem23, or a path to a JSON file) as a new "
        "published version, or as a draft with --draft. Loading unchanged content again changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("template", nargs="?", help="slug of a shipped template or path to a template file")
        parser.add_argument("--all", action="store_true", help="load every shipped template")
        parser.add_argument("--draft", action="store_true", help="load as a draft version (default: published)")

    def handle(self, *args, **options) -> None:
        if bool(options["all"]) == bool(options["template"]):
            raise CommandError("Give either a template (slug or path) or --all.")
        sources = [str(path) for path in shipped_templates()] if options["all"] else [options["template"]]
        status = TaxonomyVersion.Status.DRAFT if options["draft"] else TaxonomyVersion.Status.PUBLISHED
        loaded = unchanged = 0
        quiet = options["verbosity"] == 0
        for position, source in enumerate(sources, start=1):
            if not quiet and len(sources) > 1:
                self.stdout.write(f"[{position}/{len(sources)}] {Path(source).name}")
            try:
                result = taxonomy_template_load(source=source, status=status)
            except DomainError as exc:
                raise CommandError(exc.message) from exc
            loaded += result.created
            unchanged += not result.created
            if not quiet:
                self.stdout.write(self.style.SUCCESS(result.summary) if result.created else result.summary)
        if not quiet and len(sources) > 1:
            self.stdout.write(f"{len(sources)} templates: {loaded} loaded, {unchanged} unchanged")
