"""Resolving an issue: automatic comparison when all raters have submitted, the adjudicator's decision,
sending an issue back to the raters, taking a decision back (when the taxonomy changed under it), and the
study's anonymous-adjudication option.

``comparison`` compares the raters' labels without the database; ``auto`` writes what the comparison
decides; ``decision`` records the adjudicator's final labels or sends the issue back; ``reset`` takes a
decision back; ``adjudicators`` says who may adjudicate; ``rows`` holds the reads and locks they share
(and the lock order they keep).
"""

from .adjudicators import can_adjudicate, study_set_anonymous_adjudication
from .auto import resolution_auto, resolution_auto_on_freeze, resolutions_ensure
from .comparison import (
    EXCLUDED,
    METHOD_RANK,
    Comparison,
    RaterLabels,
    compare_labels,
    open_disagreements,
    rater_labels,
)
from .decision import resolution_record, resolution_send_back
from .reset import resolution_reset

__all__ = [
    "EXCLUDED",
    "METHOD_RANK",
    "Comparison",
    "RaterLabels",
    "can_adjudicate",
    "compare_labels",
    "open_disagreements",
    "rater_labels",
    "resolution_auto",
    "resolution_auto_on_freeze",
    "resolution_record",
    "resolution_reset",
    "resolution_send_back",
    "resolutions_ensure",
    "study_set_anonymous_adjudication",
]
