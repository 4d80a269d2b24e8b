"""The import wizard's spreadsheets: read in a worker once uploaded; periodic clean-up (Celery beat)."""

from celery import shared_task

from annotator.services.sheets_import.uploads import sheets_upload_read, sheets_uploads_clean


@shared_task(name="annotator.sheets_upload_read", ignore_result=True)
def sheets_upload_read_run(files: list[list[str]]) -> None:
    """Takes the stored names the server chose (checked again by the service) with the names as uploaded."""
    sheets_upload_read(files=[(stored, name) for stored, name in files])


@shared_task(name="annotator.sheets_uploads_clean", ignore_result=True)
def sheets_uploads_clean_run() -> None:
    sheets_uploads_clean()
