"""Setting up a study: its taxonomy version, dimensions, members and phase."""

from collections.abc import Iterable, Sequence
from decimal import Decimal

from django.db import transaction
from django.utils.text import slugify

from annotator.models import PhaseChange, Study, StudyLabelsVersion, StudyMember
from annotator.services.frames import FrameSpec, frame_append
from core.errors import ConflictError, DomainError, PermissionDeniedError
from core.permissions import can_manage_imports
from taxonomy.models import Dimension, TaxonomyVersion


def _unique_slug(name: str) -> str:
    base = slugify(name)[:180] or "study"
    slug, n = base, 1
    while Study.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _check_members(*, raters: Sequence, raters_per_issue: int, assignment_mode: str) -> None:
    if raters_per_issue < 1:
        raise DomainError("Each issue needs at least one rater.", field="raters_per_issue")
    if len(raters) < raters_per_issue:
        raise DomainError(
            f"{raters_per_issue} raters per issue needs at least {raters_per_issue} raters; {len(raters)} chosen.",
            field="raters",
        )
    if assignment_mode == Study.AssignmentMode.FIXED and len(raters) != raters_per_issue:
        raise DomainError(
            f"With fixed raters every issue goes to the same {raters_per_issue} raters: choose exactly "
            f"{raters_per_issue}, or use balanced assignment.",
            field="raters",
        )


@transaction.atomic
def study_create(
    *,
    name: str,
    taxonomy_version: TaxonomyVersion,
    created_by,
    raters: Sequence,
    dimensions: Iterable[Dimension] = (),
    adjudicators: Sequence = (),
    raters_per_issue: int = 2,
    assignment_mode: str = Study.AssignmentMode.BALANCED,
    blind: bool = True,
    guidelines: str = "",
    description: str = "",
    pilot_size: int = 0,
    agreement_threshold: Decimal | float = Decimal("0.8"),
    frame: FrameSpec | None = None,
) -> Study:
    """Create a study; the creator becomes its owner. Without dimensions, all of the version's are used.

    `frame` (default: every imported issue but the demo ones) is recorded as the study's first sample frame."""
    if not can_manage_imports(created_by):
        raise PermissionDeniedError("Only study owners and staff can create studies.")
    name = name.strip()
    if not name:
        raise DomainError("Give the study a name.", field="name")
    if Study.objects.filter(name__iexact=name).exists():
        raise ConflictError(f"A study named '{name}' exists already; choose another name.", field="name")
    dimensions = list(dimensions) or list(Dimension.objects.filter(version=taxonomy_version))
    if not dimensions:
        raise DomainError("This taxonomy version has no dimensions to label.", field="dimensions")
    foreign = [d.name for d in dimensions if d.version_id != taxonomy_version.pk]
    if foreign:
        raise DomainError(f"Dimension(s) {', '.join(foreign)} belong to another taxonomy version.", field="dimensions")
    raters = list(dict.fromkeys(raters))
    _check_members(raters=raters, raters_per_issue=raters_per_issue, assignment_mode=assignment_mode)
    threshold = Decimal(str(agreement_threshold))
    if not Decimal(0) <= threshold <= Decimal(1):
        raise DomainError("The agreement threshold is between 0 and 1.", field="agreement_threshold")
    study = Study.objects.create(
        name=name,
        slug=_unique_slug(name),
        description=description,
        taxonomy_version=taxonomy_version,
        raters_per_issue=raters_per_issue,
        assignment_mode=assignment_mode,
        blind=blind,
        guidelines=guidelines,
        pilot_size=pilot_size,
        agreement_threshold=threshold,
        created_by=created_by,
    )
    study.dimensions.set(dimensions)
    # With the study, so each label change is one UPDATE (a study made another way gets it at its first change).
    StudyLabelsVersion.objects.create(study=study)
    members = [StudyMember(study=study, user=created_by, role=StudyMember.Role.OWNER)]
    members += [StudyMember(study=study, user=user, role=StudyMember.Role.RATER) for user in raters]
    members += [
        StudyMember(study=study, user=user, role=StudyMember.Role.ADJUDICATOR) for user in dict.fromkeys(adjudicators)
    ]
    StudyMember.objects.bulk_create(members)
    frame_append(study=study, actor=created_by, spec=frame or FrameSpec())
    return study


@transaction.atomic
def study_update(
    *,
    study: Study,
    actor,
    guidelines: str | None = None,
    phase: str | None = None,
    description: str | None = None,
) -> Study:
    """Change what may change once labelling has started: guidelines, description, phase.

    Phases move only along their own paths: publishing and unpublishing through the publication service
    (which checks that every issue has its final label), leaving the pilot through the agreement gate.
    Every move is recorded as a PhaseChange.
    """
    from annotator.permissions import can_manage_study

    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can change it.")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if phase is not None and phase != locked.phase:
        study_phase_check(study=locked, to_phase=phase)
        PhaseChange.objects.create(study=locked, from_phase=locked.phase, to_phase=phase, actor=actor)
        locked.phase = phase
    if guidelines is not None:
        locked.guidelines = guidelines
    if description is not None:
        locked.description = description
    locked.save()
    study.phase = locked.phase
    return locked


def study_phase_check(*, study: Study, to_phase: str) -> None:
    """Refuse a phase move that must go through its own service (publish, unpublish, leave the pilot)."""
    if to_phase not in Study.Phase.values:
        raise DomainError(f"Unknown phase '{to_phase}'.", field="phase")
    if to_phase == Study.Phase.PUBLISHED:
        raise DomainError(
            "A study is published with Publish on its page, which checks that every issue has its final label.",
            field="phase",
        )
    if study.phase == Study.Phase.PUBLISHED:
        raise DomainError("This study is published; unpublish it before changing its phase.", field="phase")
    if study.phase == Study.Phase.PILOT:
        raise DomainError(
            "The pilot ends through the agreement gate (Leave the pilot, on the agreement page).", field="phase"
        )


@transaction.atomic
def study_member_add(*, study: Study, actor, user, role: str) -> StudyMember:
    """Add a member; new raters take part in rounds drawn from now on."""
    from annotator.permissions import can_manage_study

    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can add members.")
    if role not in StudyMember.Role.values:
        raise DomainError(f"Unknown role '{role}'.", field="role")
    if not user.is_active:
        raise DomainError(f"The account '{user.username}' is deactivated.", field="user")
    member, _ = StudyMember.objects.get_or_create(study=study, user=user, role=role)
    return member


def study_member_find_user(*, who: str):
    """The active account whose username or e-mail address is `who` (case-insensitive), or a DomainError."""
    from django.contrib.auth import get_user_model

    who = (who or "").strip()
    if not who:
        raise DomainError("Name the person by their username or e-mail address.", field="who")
    users = get_user_model().objects.filter(is_active=True)
    matches = list(users.filter(username__iexact=who)[:2]) or list(users.filter(email__iexact=who)[:2])
    if len(matches) != 1:
        raise DomainError(
            f"No single account has the username or e-mail '{who[:200]}'; ask a site administrator to create "
            "the account first.",
            field="who",
        )
    return matches[0]


def _lock_member(study: Study, member: StudyMember | int) -> StudyMember:
    pk = member if isinstance(member, int) else member.pk
    found = StudyMember.objects.select_for_update().select_related("user").filter(study=study, pk=pk).first()
    if found is None:
        raise DomainError("This person is not a member of the study (any more).", field="member")
    return found


def _keep_an_owner(study: Study, leaving: StudyMember) -> None:
    if leaving.role != StudyMember.Role.OWNER:
        return
    others = StudyMember.objects.filter(study=study, role=StudyMember.Role.OWNER).exclude(pk=leaving.pk)
    if not others.exists():
        raise DomainError("A study keeps at least one owner: make someone else owner first.", field="member")


@transaction.atomic
def study_member_set_role(*, study: Study, actor, member: StudyMember | int, role: str) -> StudyMember:
    """Give a member another role (the same person may also hold several roles, as separate memberships)."""
    from annotator.permissions import can_manage_study

    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can change roles.")
    if role not in StudyMember.Role.values:
        raise DomainError(f"Unknown role '{role}'.", field="role")
    Study.objects.select_for_update().filter(pk=study.pk).get()  # role changes of one study serialise here
    found = _lock_member(study, member)
    if found.role == role:
        return found
    _keep_an_owner(study, found)
    existing = StudyMember.objects.filter(study=study, user=found.user, role=role).first()
    if existing is not None:  # already holds that role: the old membership simply ends
        found.delete()
        return existing
    found.role = role
    found.save(update_fields=["role"])
    return found


@transaction.atomic
def study_member_remove(*, study: Study, actor, member: StudyMember | int) -> None:
    """End a membership. Work is kept: the rater's labels, history and assignments stay in the study."""
    from annotator.permissions import can_manage_study

    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can remove members.")
    Study.objects.select_for_update().filter(pk=study.pk).get()
    found = _lock_member(study, member)
    _keep_an_owner(study, found)
    found.delete()
