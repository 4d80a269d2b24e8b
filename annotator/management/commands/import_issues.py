"""python manage.py import_issues <file> [--repo owner/name] [--skip-invalid] [--user USERNAME]

The run is recorded as an ImportJob, so the Imports page lists it with its outcome.
"""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.importers.files import ParseResult
from annotator.services.imports import (
    file_import_invalid_message,
    file_import_job_execute,
    import_user_get,
    problems_message,
    repository_ref_from_text,
)
from core.errors import DomainError

PROBLEMS_SHOWN = 50


class Command(BaseCommand):
    help = (
        "Import issues from a JSON array, JSON Lines or CSV file (GitHub REST objects, `gh issue list --json` "
        "output or minimal url+title records). Re-importing is safe: unchanged issues are left alone."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a .json, .jsonl or .csv file")
        parser.add_argument("--repo", default="", help="owner/name the issues belong to (default: from each URL)")
        parser.add_argument(
            "--skip-invalid", action="store_true", help="import the valid records and list the invalid ones"
        )
        parser.add_argument("--batch-size", type=int, default=1000, help="records written per transaction")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument("--user", default=None, help="who runs the import, as the Imports page shows it")

    def handle(self, *args, **options):
        path = Path(options["file"])
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from None
        try:
            repository = repository_ref_from_text(options["repo"])
        except DomainError as exc:
            raise CommandError(f"--repo: {exc.message}") from None
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        try:
            user = import_user_get(username=options["user"])
        except DomainError as exc:
            raise CommandError(f"--user: {exc.message}") from None

        bar: tqdm | None = None

        def on_parsed(parsed: ParseResult) -> None:
            nonlocal bar
            if parsed.problems:
                self.stderr.write(f"{parsed.invalid} of {parsed.total} records are invalid:")
                for line in problems_message(parsed.problems, limit=PROBLEMS_SHOWN):
                    self.stderr.write(f"  {line}")
            if not options["no_progress"] and (not parsed.problems or options["skip_invalid"]):
                bar = tqdm(total=len(parsed.records), unit="issue", desc="importing", file=sys.stderr)

        try:
            _job, outcome = file_import_job_execute(
                data=data,
                name=path.name,
                user=user,
                repository=repository,
                skip_invalid=options["skip_invalid"],
                batch_size=options["batch_size"],
                on_parsed=on_parsed,
                progress=(lambda n: bar.update(n)) if not options["no_progress"] else None,
            )
        finally:
            if bar is not None:
                bar.close()
        if not outcome.written:
            raise CommandError(file_import_invalid_message(outcome.parsed))
        self.stdout.write(outcome.summary())
