"""Celery application. Broker from CELERY_BROKER_URL; without one, tasks run eagerly in-process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("taxonomist")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Jobs never hang: with late acks (CELERY_TASK_ACKS_LATE) a message is acknowledged once its task
# ended, and a pool process killed mid-task hands its message back at once instead of losing it.
# Job tasks are safe to run twice: each claims its job atomically (annotator/services/jobs.py).
app.conf.task_reject_on_worker_lost = True
app.autodiscover_tasks()
