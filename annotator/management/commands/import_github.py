"""python manage.py import_github owner/name [--since ISO] [--state open|closed|all] [--limit N] [--fix-details] ...

Each run is an ImportJob (the GitHub sync's own), so the Imports page lists it with its outcome.
"""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.importers.github import GitHubError
from annotator.models import ImportJob
from annotator.services.github_sync import github_client_build, github_import_continue, github_import_start
from annotator.services.imports import import_user_get
from core.errors import DomainError


def _since(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CommandError(
            f"--since wants an ISO date such as 2024-01-31 or 2024-01-31T12:00:00Z, not {value!r}"
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = "Import (or incrementally sync) a repository's issues and comments from the GitHub REST API."

    def add_arguments(self, parser):
        parser.add_argument("repository", help="owner/name, e.g. deepspeedai/DeepSpeed")
        parser.add_argument("--since", type=_since, help="only issues and comments updated since (ISO date)")
        parser.add_argument("--state", choices=["open", "closed", "all"], default="all")
        parser.add_argument("--limit", type=int, help="stop after N issues")
        parser.add_argument("--include-pulls", action="store_true", help="keep pull requests (flagged as such)")
        parser.add_argument("--fix-links", action="store_true", help="read closed issues' timelines for fixes")
        parser.add_argument(
            "--fix-details",
            action="store_true",
            help="also read each linked fix (pull request or commit): size, files, merge time (implies --fix-links)",
        )
        parser.add_argument("--full", action="store_true", help="ignore the last sync and read everything")
        parser.add_argument("--resume", type=int, metavar="JOB", help="continue an interrupted job")
        parser.add_argument(
            "--user", default=None, help="who runs the import, as the Imports page shows it (a resumed job keeps its)"
        )

    def handle(self, *args, **options):
        try:
            user = import_user_get(username=options["user"])
        except DomainError as exc:
            raise CommandError(f"--user: {exc.message}") from None
        try:
            if options["resume"]:
                job = ImportJob.objects.get(pk=options["resume"], kind=ImportJob.Kind.GITHUB)
            else:
                job = github_import_start(
                    repository=options["repository"],
                    user=user,
                    state=options["state"],
                    since=options["since"],
                    limit=options["limit"],
                    include_pulls=options["include_pulls"],
                    fix_links=options["fix_links"],
                    fix_details=options["fix_details"],
                    full=options["full"],
                    enqueue=False,
                )
        except (DomainError, ImportJob.DoesNotExist) as exc:
            raise CommandError(getattr(exc, "message", str(exc))) from exc
        bar = tqdm(desc=f"{job.parameters['repository']}", unit=" pages", file=self.stderr, disable=None)

        def progress(job, client):
            counts = job.counts
            bar.update(1)
            bar.set_postfix(
                phase=job.cursor.get("phase"),
                issues=job.progress_done,
                comments=counts.get("comments_created", 0) + counts.get("comments_updated", 0),
                rate_left=client.rate_remaining,
                refresh=False,
            )

        try:
            # The command waits out rate limits itself (no max wait): nobody else will resume it.
            github_import_continue(job=job, client=github_client_build(), progress=progress)
        except GitHubError as exc:
            raise CommandError(f"{exc.message} (resume with --resume {job.pk})") from exc
        finally:
            bar.close()
        job.refresh_from_db()
        self.stdout.write(self.style.SUCCESS(summary(job)))


def summary(job: ImportJob) -> str:
    c = job.counts
    return (
        f"{job.parameters['repository']}: issues created {c.get('created', 0)}, updated {c.get('updated', 0)}, "
        f"unchanged {c.get('unchanged', 0)}, pull requests skipped {c.get('pulls_skipped', 0)}; "
        f"comments created {c.get('comments_created', 0)}, updated {c.get('comments_updated', 0)}; "
        f"fix links {c.get('links', 0)}; fix details fetched {c.get('fixes_fetched', 0)}, "
        f"unchanged {c.get('fixes_unchanged', 0)}, files {c.get('fix_files', 0)}; "
        f"{c.get('requests', 0)} requests ({c.get('not_modified', 0)} not modified), "
        f"rate limit left {c.get('rate_limit_remaining', '?')}; job #{job.pk} in {job.duration}"
    )
