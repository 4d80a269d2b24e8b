"""Background recomputation of a study's agreement report after its labels changed."""

from celery import shared_task

from annotator.models import Study


@shared_task(name="annotator.agreement_precompute", ignore_result=True)
def agreement_precompute(study_id: int) -> None:
    """Takes an id and re-fetches: the study may have changed (or gone) since the task was queued."""
    # Imported here: the report brings numpy, scipy and statsmodels, and a web worker imports the tasks
    # (to queue them) without ever running this one.
    from annotator.services.agreement.precompute import agreement_report_precompute

    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        agreement_report_precompute(study=study)
