"""python manage.py rebuild_progress [--study <name, slug or id>]"""

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from annotator.models import Study
from annotator.services.progress import rater_progress_rebuild
from core.numbers import ascii_int


class Command(BaseCommand):
    help = (
        "Recount the raters' progress counters (done / total per round) from their assignments: after a bulk "
        "load or an import that wrote assignments directly. Safe to run at any time."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--study", default=None, help="only this study (name, slug or id); default: all")

    def handle(self, *args, **options) -> None:
        study = None
        if options["study"]:
            text = options["study"].strip()
            match = Q(name__iexact=text) | Q(slug=text)
            if (pk := ascii_int(text)) is not None:
                match |= Q(pk=pk)
            study = Study.objects.filter(match).first()
            if study is None:
                raise CommandError(f"No study named '{text}'. The Studies page lists them.")
        rows = rater_progress_rebuild(study=study)
        scope = f"study '{study.name}'" if study else "all studies"
        self.stdout.write(self.style.SUCCESS(f"Recounted progress of {scope}: {rows} rater-round counters."))
