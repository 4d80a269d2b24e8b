"""Computing a study's agreement report ahead of the next page view (run by a Celery task after a label change)."""

from django.core.cache import cache

from annotator.models import Study
from annotator.selectors.agreement import labels_version

from .gate import agreement_gate
from .report import agreement_report
from .version import precompute_lock_key


def agreement_report_precompute(*, study: Study) -> str:
    """Compute and cache the study's unfiltered report (and its pilot gate); returns the labels version.

    Idempotent: on unchanged labels both come from the cache. The "queued" mark is cleared first, so a label
    changed while this runs queues another run instead of being missed.
    """
    cache.delete(precompute_lock_key(study.pk))
    version = labels_version(study=study)
    agreement_report(study=study, version=version)
    if study.phase == Study.Phase.PILOT:
        agreement_gate(study=study, version=version)
    return version
