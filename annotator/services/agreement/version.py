"""The study's labels version: bumped by every service that changes labels, read by the cached report.

``study_labels_changed`` is called inside the transaction that changes an annotation or a resolution, so
the new version becomes visible exactly when the new labels do. Once that transaction commits, it queues
the report's recomputation (debounced: one queued task per study at a time), so the next page view is warm.
"""

from datetime import timedelta

from celery import current_app
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.models import StudyLabelsVersion

# A burst of submits (a rater working down the queue) becomes one recomputation this many seconds later.
PRECOMPUTE_DELAY_SECONDS = 10
# The "already queued" mark outlives a lost task by at most this long.
PRECOMPUTE_LOCK_SECONDS = 15 * 60


def precompute_lock_key(study_id: int) -> str:
    return f"agreement:precompute:{study_id}"


def study_labels_changed(*, study_id: int) -> None:
    """Record that the study's labels changed; call it last in the transaction that changed them.

    One UPDATE that increments, so a label change costs one more query; a study's first change creates the row
    first. The row stays locked until the transaction ends, which orders concurrent label changes of one study:
    called as the last write, the lock is held for the commit only.
    """
    now = timezone.now()
    row = StudyLabelsVersion.objects.filter(study_id=study_id)
    if not row.update(number=F("number") + 1, changed_at=now):
        # A concurrent first change inserting the same row makes get_or_create wait for it, then read it.
        StudyLabelsVersion.objects.get_or_create(study_id=study_id)
        row.update(number=F("number") + 1, changed_at=now)
    # robust: the labels are committed by then, so a failure here (the cache or the broker down) is logged and
    # must not turn the rater's saved change into an error; the next agreement page view computes the report.
    transaction.on_commit(lambda: agreement_precompute_soon(study_id=study_id), robust=True)


def agreement_precompute_soon(*, study_id: int) -> bool:
    """Queue the report's recomputation unless one is queued already; True when this call queued it.

    Without a broker tasks run in-process, and a recomputation there would make the rater who submitted
    wait for it: the next agreement page view computes the report instead.
    """
    if current_app.conf.task_always_eager:
        return False
    if not cache.add(precompute_lock_key(study_id), 1, PRECOMPUTE_LOCK_SECONDS):
        return False
    from annotator.jobs import task_send

    # Runs after the rater's write has committed: with the broker down the write stands, the lock is let go,
    # and the next view of the agreement page computes the report itself.
    when = timezone.now() + timedelta(seconds=PRECOMPUTE_DELAY_SECONDS)
    if not task_send("annotator.agreement_precompute", args=[study_id], eta=when):
        cache.delete(precompute_lock_key(study_id))
        return False
    return True
