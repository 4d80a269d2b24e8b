"""python manage.py import_issues <file> [--repo owner/name] [--skip-invalid] [--user USERNAME]

The run is recorded as an ImportJob, so the Imports page lists it with its outcome. The file is read as a
stream and written in one transaction: all of it, or (a record invalid, a failure) nothing.
"""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

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
            handle = path.open("rb")
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from None
        with handle:
            self._import(handle, path.name, options)

    def _import(self, handle, name: str, options) -> None:
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

        # The file is read as it is written, so the bar counts records without knowing how many will come.
        bar = None if options["no_progress"] else tqdm(unit="issue", desc="importing", file=sys.stderr)
        try:
            _job, outcome = file_import_job_execute(
                data=handle,
                name=name,
                user=user,
                repository=repository,
                skip_invalid=options["skip_invalid"],
                batch_size=options["batch_size"],
                progress=bar.update if bar is not None else None,
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        finally:
            if bar is not None:
                bar.close()
        parsed = outcome.parsed
        if parsed.has_problems:
            self.stderr.write(f"{parsed.invalid} of {parsed.total} records are invalid:")
            for line in problems_message(parsed.problems, limit=PROBLEMS_SHOWN, total=parsed.problem_count):
                self.stderr.write(f"  {line}")
        if not outcome.written:
            raise CommandError(file_import_invalid_message(parsed))
        self.stdout.write(outcome.summary())
