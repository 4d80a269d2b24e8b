"""How a viewer sees a study's raters: their names, or stable pseudonyms R1, R2, ... under anonymous adjudication.

One rule for every surface (adjudication and history pages, the annotation API, member lists, labels exports,
agreement pairs): when the study's owner has turned on anonymous adjudication, everyone but the owners (and
the rater themselves, for their own labels) sees a rater as "R<n>". The number is the rater's place in the
order raters joined the study, so R1 is the same person on every page and in every file of the study.
"""

from collections.abc import Iterable

from annotator.models import Study, StudyMember
from annotator.permissions import study_roles

PREFIX = "R"


def sees_rater_names(viewer, study: Study) -> bool:
    """Whether `viewer` sees the raters' names in `study` (else pseudonyms).

    Owners set the study up and know who rated what: hiding names from them protects nobody. Everyone else
    (adjudicators, staff who are not owners, other raters) sees pseudonyms while adjudication is anonymous.
    """
    if not study.anonymous_adjudication:
        return True
    return StudyMember.Role.OWNER in study_roles(viewer, study)


def study_rater_pseudonyms(*, study: Study, rater_ids: Iterable[int] = ()) -> dict[int, str]:
    """{user id: "R1", "R2", ...} for the study's raters, numbered in the order they joined (one query).

    `rater_ids`: people who labelled issues of the study but are no longer among its raters; they follow the
    members, by id, so that every rater shown has a pseudonym.
    """
    ordered = list(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER)
        .order_by("added_at", "id")
        .values_list("user_id", flat=True)
    )
    known = set(ordered)
    ordered += sorted({pk for pk in rater_ids if pk not in known})
    return {pk: f"{PREFIX}{number}" for number, pk in enumerate(ordered, start=1)}


def rater_display_names(*, study: Study, viewer, raters: Iterable) -> dict[int, str]:
    """{user id: what `viewer` sees for that rater}: the name, or the study's pseudonym (see sees_rater_names)."""
    raters = list(raters)
    if sees_rater_names(viewer, study):
        return {user.pk: user.display_name or user.username for user in raters}
    pseudonyms = study_rater_pseudonyms(study=study, rater_ids=[user.pk for user in raters])
    return {user.pk: pseudonyms[user.pk] for user in raters}
