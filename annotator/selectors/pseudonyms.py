"""How a viewer sees a study's raters: their names, or stable pseudonyms R1, R2, ... under anonymous adjudication.

One rule for every surface (adjudication and history pages, the annotation API, member lists, labels exports,
agreement pairs, releases): when the study's owner has turned on anonymous adjudication, everyone but the owners
(and the rater themselves, for their own labels) sees a rater as "R<n>". The numbers are the releases' own
(annotator.selectors.publication.member_pseudonyms): raters in the order they joined the study, and a pseudonym
once published stays with its person, also after they leave; so R1 is the same person on every page and in every
file of the study, the replication package of a release included.
"""

from collections.abc import Iterable

from annotator.models import Study, StudyMember
from annotator.permissions import study_roles
from annotator.selectors.publication import member_pseudonyms

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
    """{user id: "R1", "R2", ...} for everyone who rated in the study, members or not (member_pseudonyms).

    `rater_ids`: people to be shown as raters whom that rule does not number as one (someone who rated and now
    holds only another role of the study): they follow, by id, so that every rater shown has a pseudonym.
    """
    pseudonyms = {pk: p for pk, p in member_pseudonyms(study=study, raters_only=True).items() if p.startswith(PREFIX)}
    taken = max((int(p.removeprefix(PREFIX)) for p in pseudonyms.values()), default=0)
    for number, pk in enumerate(sorted({pk for pk in rater_ids if pk not in pseudonyms}), start=taken + 1):
        pseudonyms[pk] = f"{PREFIX}{number}"
    return pseudonyms


def rater_display_names(*, study: Study, viewer, raters: Iterable) -> dict[int, str]:
    """{user id: what `viewer` sees for that rater}: the name, or the study's pseudonym (see sees_rater_names)."""
    raters = list(raters)
    if sees_rater_names(viewer, study):
        return {user.pk: user.display_name or user.username for user in raters}
    pseudonyms = study_rater_pseudonyms(study=study, rater_ids=[user.pk for user in raters])
    return {user.pk: pseudonyms[user.pk] for user in raters}


def rater_as_seen(*, viewer, assignment) -> str:
    """The rater of `assignment` (rater and study_issue.study loaded) as `viewer` sees them: their username, or
    the study's pseudonym. None as viewer means the rater themselves."""
    rater = assignment.rater
    if viewer is None or viewer.pk == rater.pk:
        return rater.username
    study = assignment.study_issue.study
    if sees_rater_names(viewer, study):
        return rater.username
    return study_rater_pseudonyms(study=study, rater_ids=[rater.pk])[rater.pk]


def study_members_as_seen(*, study: Study, viewer) -> list[dict[str, str]]:
    """The study's members for its pages: {"name", "role", "role_display"}, raters pseudonymised for viewers who
    may not see their names (themselves excepted)."""
    named = sees_rater_names(viewer, study)
    # By name when names are shown; else in joining order, which is the pseudonyms' order and tells nothing.
    order = ("role", "user__username") if named else ("role", "added_at", "id")
    members = list(StudyMember.objects.filter(study=study).select_related("user").order_by(*order))
    pseudonyms = {} if named else study_rater_pseudonyms(study=study)
    rows = []
    for member in members:
        hidden = member.role == StudyMember.Role.RATER and not named and member.user_id != viewer.pk
        rows.append(
            {
                "name": pseudonyms.get(member.user_id, PREFIX) if hidden else str(member.user),
                "role": member.role,
                "role_display": member.get_role_display(),
            }
        )
    return rows
