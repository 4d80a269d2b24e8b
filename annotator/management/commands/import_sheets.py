"""python manage.py import_sheets <xlsx-or-csv>... --study <name> --raters <sheet-or-file>,... --key <column>
--map <dimension>=<column> ... [--final <sheet>] [--missing PENDING] [--labels mapping.csv] [--taxonomy <slug>]
[--user USERNAME]

The run is recorded as an ImportJob, so the Imports page lists it with its outcome. It runs as --user (or,
without it, as --owner) and may then do only what that user may do on the site: import, import into a study
they own, and add categories to a taxonomy only as a taxonomy maintainer. With neither it runs as the system.
"""

import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.importers.label_cleaning import LabelMappingError, read_label_mapping, write_label_mapping
from annotator.services.imports import import_user_get, sheets_import_job_execute
from annotator.services.sheets_import import (
    LabelDecisionsNeeded,
    SheetsImportError,
    SheetsImportRequest,
    column_map_parse,
)
from core.errors import DomainError, PermissionDeniedError

WARNINGS_SHOWN = 20
SPREADSHEET_SUFFIXES = {".xlsx", ".csv"}


class Command(BaseCommand):
    help = (
        "Import a study labelled in spreadsheets (one sheet or CSV file per rater, optionally a final sheet after "
        "discussion) as one round of a study. Labels are cleaned visibly: near-duplicates are suggested for you to "
        "confirm in a mapping file. Re-running the same import changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="*", help=".xlsx workbooks or .csv files")
        parser.add_argument("--study", required=True, help="the study to import into (created if it does not exist)")
        parser.add_argument(
            "--raters", required=True, help="the raters' sheets or CSV files, comma-separated (label1,label2)"
        )
        parser.add_argument("--final", default=None, help="the sheet with the labels agreed after discussion")
        parser.add_argument("--key", required=True, help="the column that identifies an issue: a link to it (Link)")
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            required=True,
            metavar="DIMENSION=COLUMN",
            help="a dimension and its column; repeat per dimension. For a category tree name the columns top "
            "down: symptom=Stage>Type>Leaf Category (the last holds the label)",
        )
        parser.add_argument(
            "--missing", action="append", default=None, help="a cell text meaning 'not labelled' (default PENDING)"
        )
        parser.add_argument("--labels", default=None, help="a dimension,from,to mapping file with your decisions")
        parser.add_argument(
            "--write-labels",
            default=None,
            help="where to write the proposed (or, after an import, the applied) label mapping",
        )
        parser.add_argument("--accept-suggestions", action="store_true", help="accept every merge suggestion")
        parser.add_argument("--taxonomy", default=None, help="the slug of the taxonomy to label with")
        parser.add_argument(
            "--add-unknown-labels",
            action="store_true",
            help="add labels that fit no category to a draft version of the taxonomy (or a new taxonomy)",
        )
        parser.add_argument("--rater-users", default="", help="existing users for the rater sheets, comma-separated")
        parser.add_argument("--round", type=int, default=None, help="the round number (default: the next one)")
        parser.add_argument(
            "--owner", default=None, help="a user to own a new study (and to run as, without --user; default: none)"
        )
        parser.add_argument(
            "--user",
            default=None,
            help="run as this user, with their permissions (taxonomy changes need a taxonomy maintainer); "
            "the Imports page shows them. Default: --owner, else the system",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options):
        paths = [Path(p) for p in options["files"]]
        raters = [_sheet_or_file(entry, paths) for entry in _split(options["raters"])]
        final = _sheet_or_file(options["final"], paths) if options["final"] else None
        try:
            mapping = read_label_mapping(options["labels"]) if options["labels"] else None
        except (OSError, LabelMappingError) as exc:
            raise CommandError(f"--labels: {exc}") from None
        owner = None
        if options["owner"]:
            owner = get_user_model().objects.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"--owner: there is no user '{options['owner']}'.")
        try:
            user = import_user_get(username=options["user"])
        except DomainError as exc:
            raise CommandError(f"--user: {exc.message}") from None
        try:
            request = SheetsImportRequest(
                paths=tuple(paths),
                study_name=options["study"],
                raters=tuple(raters),
                key=options["key"],
                columns=tuple(column_map_parse(text) for text in options["map"]),
                final=final,
                missing=frozenset(options["missing"] or {"PENDING"}),
                label_mapping=mapping,
                accept_suggestions=options["accept_suggestions"],
                taxonomy=options["taxonomy"],
                add_unknown_labels=options["add_unknown_labels"],
                rater_users=tuple(_split(options["rater_users"])),
                round_number=options["round"],
            )
        except SheetsImportError as exc:
            raise CommandError(exc.message) from None

        bar = None

        def progress(n: int) -> None:
            nonlocal bar  # made on the first issue written, so nothing is drawn when the import stops before
            if bar is None:
                bar = tqdm(unit="issue", desc="importing", file=sys.stderr)
            bar.update(n)

        try:
            _job, result = sheets_import_job_execute(
                request=request,
                user=user,
                actor=user or owner,
                owner=owner,
                progress=None if options["no_progress"] else progress,
            )
        except LabelDecisionsNeeded as exc:
            target = Path(options["write_labels"] or _proposed_path(paths[0] if paths else Path("labels.csv")))
            self._propose(exc, target)
            raise CommandError(
                f"Nothing was imported. The proposed merges are in {target}: delete the lines you do not accept, "
                f"then re-run with --labels {target} (or --accept-suggestions to accept them all)."
            ) from None
        except (SheetsImportError, PermissionDeniedError) as exc:
            raise CommandError(exc.message) from None
        finally:
            if bar is not None:
                bar.close()

        if result.warnings:
            self.stderr.write(f"{len(result.warnings)} warning(s) (these rows or labels were left out):")
            for line in result.warnings[:WARNINGS_SHOWN]:
                self.stderr.write(f"  {line}")
            if len(result.warnings) > WARNINGS_SHOWN:
                self.stderr.write(f"  ... and {len(result.warnings) - WARNINGS_SHOWN} more.")
        for unknown in result.unknown:
            self.stdout.write(f"  added category '{unknown.display}' to {unknown.dimension} ({unknown.first})")
        if options["write_labels"]:
            write_label_mapping(options["write_labels"], result.mapping)
            self.stdout.write(f"label decisions applied: {options['write_labels']}")
        self.stdout.write(result.summary())

    def _propose(self, exc: LabelDecisionsNeeded, target: Path) -> None:
        proposed = dict(exc.plan.mapping)
        self.stdout.write("Suggested merges (a rarer spelling into a more frequent one):")
        for table_key, found in exc.plan.undecided.items():
            for suggestion in found:
                self.stdout.write(f"  {table_key}: {suggestion}")
                proposed[(table_key, suggestion.from_label)] = suggestion.to_label
        write_label_mapping(target, proposed)


def _sheet_or_file(entry: str, paths: list[Path]) -> str:
    """A sheet name as it is; a spreadsheet file is added to the inputs and named by its file name."""
    path = Path(entry)
    if path.suffix.lower() in SPREADSHEET_SUFFIXES and path.is_file():
        if path not in paths:
            paths.append(path)
        return path.stem  # a CSV file is read as a sheet named after the file
    return entry


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _proposed_path(first_input: Path) -> Path:
    return first_input.with_name(f"{first_input.stem}-labels.csv")
