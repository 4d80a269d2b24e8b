"""`{% load adjudication_tags %}{% adjudication_summary study %}`: the study page's adjudication progress."""

from django import template

from annotator.selectors.resolutions import adjudication_progress
from annotator.services.resolutions import can_adjudicate

register = template.Library()


@register.inclusion_tag("annotator/adjudication/_study_summary.html", takes_context=True)
def adjudication_summary(context, study) -> dict:
    """Resolved, pending and excluded counts with a link to the queue; empty for raters (blindness)."""
    user = context["request"].user
    if not can_adjudicate(user, study):
        return {"study": study, "progress": None}
    return {"study": study, "progress": adjudication_progress(study=study)}
