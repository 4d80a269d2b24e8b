"""python manage.py agreement --study <name> [--format json|csv|table] [--round N] [--by-level] [--by-pair]
[--bootstrap]"""

import json

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from annotator.exports.safe_csv import csv_rows
from annotator.models import Study
from annotator.services.agreement import TABLE_COLUMNS, agreement_report, parse_pair, report_rows
from core.errors import DomainError
from core.numbers import ascii_int

TABLE_SHOWN = ["view", "dimension", "level", "pair", "rater", "n", "n_left_out", "percent_agreement", "kappa"]
TABLE_SHOWN += ["kappa_low", "kappa_high", "kappa_ci_clipped", "alpha", "ac1", "band"]


def _cell(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


class Command(BaseCommand):
    help = "Print a study's inter-rater agreement (per dimension; optionally per taxonomy level and rater pair)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--study", required=True, help="the study's name, slug or id")
        parser.add_argument("--format", choices=["table", "json", "csv"], default="table")
        parser.add_argument("--round", type=int, default=None, help="only the issues of this round")
        parser.add_argument("--pair", default=None, help="only this rater pair, as two user ids: 12-15")
        parser.add_argument("--level", type=int, default=None, help="taxonomy level (1 = top) instead of the leaf")
        parser.add_argument("--by-level", action="store_true", help="add a row per taxonomy level")
        parser.add_argument("--by-pair", action="store_true", help="add a row per rater pair")
        parser.add_argument(
            "--bootstrap", action="store_true", help="add seeded bootstrap intervals of each dimension's summary"
        )

    def handle(self, *args, **options) -> None:
        text = options["study"].strip()
        match = Q(name__iexact=text) | Q(slug=text)
        if (pk := ascii_int(text)) is not None:
            match |= Q(pk=pk)
        study = Study.objects.filter(match).first()
        if study is None:
            names = ", ".join(Study.objects.order_by("name").values_list("name", flat=True)[:20]) or "none yet"
            raise CommandError(f"No study named '{text}'. Studies: {names}.")
        try:
            report = agreement_report(
                study=study,
                round_number=options["round"],
                pair=parse_pair(options["pair"]),
                level=options["level"],
                bootstrap=options["bootstrap"],
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        rows = list(report_rows(report, by_level=options["by_level"], by_pair=options["by_pair"], after=True))
        if options["format"] == "json":
            self.stdout.write(json.dumps({"study": study.name, **report}, indent=2))
        elif options["format"] == "csv":
            self.stdout.write("".join(csv_rows(TABLE_COLUMNS, rows)), ending="")
        else:
            self._table(study, report, rows)

    def _table(self, study: Study, report: dict, rows: list[list]) -> None:
        picked = [TABLE_COLUMNS.index(name) for name in TABLE_SHOWN]
        basis, note, left = (TABLE_COLUMNS.index(name) for name in ("basis", "kappa_ci_note", "left_out"))
        scope = f"round {report['filters']['round']}" if report["filters"]["round"] else "all rounds"
        self.stdout.write(
            f"{study.name}: {report['issues']} issues, {len(report['raters'])} raters, {scope}; "
            f"{report['resolved']} with a final label, {report['pending']} waiting for adjudication or discussion"
        )
        for title in dict.fromkeys(row[basis] for row in rows):
            part = [row for row in rows if row[basis] == title]
            grid = [TABLE_SHOWN] + [[_cell(row[i]) for i in picked] for row in part]
            widths = [max(len(line[i]) for line in grid) for i in range(len(TABLE_SHOWN))]
            self.stdout.write("")
            self.stdout.write(title[:1].upper() + title[1:])
            for n, line in enumerate(grid):
                self.stdout.write("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
                if n == 0:
                    self.stdout.write("  ".join("-" * width for width in widths))
            notes = [f"  {row[TABLE_COLUMNS.index('dimension')]}: {row[left]}" for row in part if row[left]]
            notes += [f"  {row[TABLE_COLUMNS.index('dimension')]}: interval {row[note]}" for row in part if row[note]]
            if notes:
                self.stdout.write("Left out and not estimable:")
                for line in dict.fromkeys(notes):
                    self.stdout.write(line)
        for d in report["dimensions"]:
            for b in d["summary"].get("bootstrap", []):
                shown = f"{b['low']:.3f} - {b['high']:.3f}" if b["low"] is not None else b["note"]
                self.stdout.write(f"Bootstrap {d['name']} {b['measure']}: {shown}")
        if not report["after_available"]:
            self.stdout.write("Each rater against the final label: not available yet (no issue has a final label).")
