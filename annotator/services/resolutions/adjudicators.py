"""Who may adjudicate a study, and the study's anonymous-adjudication option."""

from django.db import transaction

from annotator.models import Study, StudyMember
from core.errors import PermissionDeniedError


def can_adjudicate(user, study: Study) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return StudyMember.objects.filter(
        study=study, user=user, role__in=[StudyMember.Role.OWNER, StudyMember.Role.ADJUDICATOR]
    ).exists()


@transaction.atomic
def study_set_anonymous_adjudication(*, study: Study, actor, anonymous: bool) -> Study:
    """Owners (and staff) choose whether adjudicators see the raters' names or pseudonyms (R1, R2)."""
    is_owner = StudyMember.objects.filter(study=study, user=actor, role=StudyMember.Role.OWNER).exists()
    if not (is_owner or actor.is_staff):
        raise PermissionDeniedError("Only the study's owner can change how adjudicators see the raters.")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    locked.anonymous_adjudication = anonymous
    locked.save(update_fields=["anonymous_adjudication", "updated_at"])
    return locked
