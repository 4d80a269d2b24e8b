"""python manage.py load_components [FILE] [--replace]: give repositories their component rules.

Without FILE, the starting rules shipped for DeepSpeed, Megatron-LM and Colossal-AI
(annotator/data/components.json). A repository that already has rules keeps them unless --replace.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.services.components import STARTING_RULES, component_rules_load, component_rules_read_file
from core.errors import DomainError


class Command(BaseCommand):
    help = "Load component rules (path pattern -> component) for repositories from a JSON file."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=STARTING_RULES, help="a rules file (JSON)")
        parser.add_argument("--replace", action="store_true", help="also replace rules a repository already has")

    def handle(self, *args, file: Path, replace: bool = False, **options):
        if not file.is_file():
            raise CommandError(f"There is no file {file}.")
        try:
            result = component_rules_load(rules_by_repository=component_rules_read_file(file), replace=replace)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        for full_name, count in result.loaded.items():
            self.stdout.write(f"{full_name}: {count} component rules")
        for full_name in result.kept:
            self.stdout.write(f"{full_name}: kept its own rules (--replace to overwrite)")
        self.stdout.write(self.style.SUCCESS(f"Component rules loaded for {len(result.loaded)} repositories."))
