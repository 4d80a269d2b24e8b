"""python manage.py reap_jobs: what Celery beat runs every JOB_REAPER_SECONDS, once, here and now.

Running jobs whose heartbeat stopped (their worker was killed) are queued again, or failed after
JOB_MAX_ATTEMPTS; jobs saved "not queued" while the broker was down are sent again.
"""

from django.core.management.base import BaseCommand

from annotator.services.jobs import jobs_reap


class Command(BaseCommand):
    help = "Re-queue or fail jobs whose worker died; send again the jobs the queue never took."

    def handle(self, *args, **options):
        outcome = jobs_reap()
        self.stdout.write(self.style.SUCCESS(outcome.summary().capitalize()))
