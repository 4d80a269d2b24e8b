"""Periodic clean-up of the spreadsheets left by unfinished import wizards (Celery beat)."""

from celery import shared_task

from annotator.services.sheets_import.uploads import sheets_uploads_clean


@shared_task(name="annotator.sheets_uploads_clean", ignore_result=True)
def sheets_uploads_clean_run() -> None:
    sheets_uploads_clean()
