"""Carrying a study's labels to a later taxonomy version along the lineage.

Renames, moves and merges are carried automatically. A label whose category was split (or deprecated)
cannot be placed by a program: it stays on the old category's deprecated copy in the new version and
its annotation, if submitted, is reopened so that it is back in the rater's queue. A final label
(resolution) is carried the same way; one that used such a category, or that was decided on annotations
now reopened, goes back to adjudication through the resolution service (`resolution_reset`).

Nothing is lost: AnnotationValue rows are updated in place, but each changed annotation and resolution
gets a history entry with its labels before and after, and a StudyVersionMove keeps the whole old -> new
mapping and every label as it was, so the labels under any earlier version can be read back
(`labels_as_of_version`) and agreement computed per version (`agreement_per_version`).
"""

from .move import study_version_move
from .per_version import agreement_per_version, labels_as_of_version
from .preview import study_version_preview
from .targets import study_version_targets

__all__ = [
    "agreement_per_version",
    "labels_as_of_version",
    "study_version_move",
    "study_version_preview",
    "study_version_targets",
]
