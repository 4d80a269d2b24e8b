"""Keeping a study's `updated_at` in step with its dimensions, whichever surface changes them.

A study's set of dimensions is cached per process keyed by (study id, updated_at)
(annotator.selectors.studies.study_dimension_ids); a change of the many-to-many rows does not save the
study, so it moves the time here, in the same transaction as the change.
"""

from django.db.models.signals import m2m_changed
from django.dispatch import receiver
from django.utils import timezone

from annotator.models import Study

# From the study's side a clear is seen after it happens; from a dimension's side before, while it is known
# which studies lose it.
CHANGES = {False: {"post_add", "post_remove", "post_clear"}, True: {"post_add", "post_remove", "pre_clear"}}


@receiver(m2m_changed, sender=Study.dimensions.through)
def study_dimensions_changed(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    if action not in CHANGES[reverse]:
        return
    if reverse:  # changed from the dimension's side: every study it is added to or taken from
        studies = (
            Study.objects.filter(dimensions=instance)
            if action == "pre_clear"
            else Study.objects.filter(pk__in=pk_set or ())
        )
    else:
        studies = Study.objects.filter(pk=instance.pk)
    now = timezone.now()
    studies.update(updated_at=now)
    if not reverse:
        instance.updated_at = now
