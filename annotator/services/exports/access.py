"""Who may download what of a study.

- Taxonomy: every member; anyone signed in once the study is published.
- Final dataset, per-rater labels, the paper's tables: owners, adjudicators and staff; raters get 403 while
  the study is blind (the files show the other rater's labels); anyone signed in once it is published.
- Raters are named only for owners, adjudicators and staff; everyone else sees R1, R2, ... So do adjudicators
  (and staff who are not owners) when the study's adjudication is anonymous (see selectors.pseudonyms).
- The replication package: built by the owner (or staff); downloaded by whoever may read the labels.
Non-members of an unpublished study get 404, so its existence is not revealed.
"""

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404

from annotator.models import Study
from annotator.permissions import can_manage_study, can_see_all_labels, can_view_study, is_rater
from annotator.selectors.pseudonyms import sees_rater_names

BLIND_MESSAGE = (
    "The labels stay hidden from raters while the study is blind: an export would show the other rater's "
    "labels. They can be downloaded once the study is published."
)
TAXONOMY = "taxonomy"
LABELS = "labels"


@dataclass(frozen=True, slots=True)
class ExportAccess:
    study: Study
    pseudonymous: bool
    manager: bool


def _study(pk: int) -> Study:
    study = Study.objects.select_related("taxonomy_version__taxonomy").filter(pk=pk).first()
    if study is None:
        raise Http404("No such study.")
    return study


def export_access(*, user, pk: int, what: str = LABELS) -> ExportAccess:
    """The study and how its export is shown to ``user``; Http404 / PermissionDenied otherwise."""
    if not user.is_authenticated:
        raise PermissionDenied("Sign in to download exports.")
    study = _study(pk)
    published = study.phase == Study.Phase.PUBLISHED
    member = can_view_study(user, study)
    if not member and not published:
        raise Http404("No such study.")
    full = can_see_all_labels(user, study)
    if what == LABELS and not full and not published and not (is_rater(user, study) and not study.blind):
        raise PermissionDenied(BLIND_MESSAGE)
    named = full and sees_rater_names(user, study)
    return ExportAccess(study=study, pseudonymous=not named, manager=can_manage_study(user, study))
