"""Card-sorting decisions on raters' proposals, and applying them to a draft of the study's taxonomy."""

from collections.abc import Sequence

from django.db import transaction

from annotator.models import ProposalDecision, Study
from annotator.permissions import can_manage_study
from annotator.selectors.cardsort import cardsort_board, proposal_key, study_board_dimensions
from core.errors import DomainError, PermissionDeniedError
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services.operations import category_add, category_alias_add, version_draft_from

Action = ProposalDecision.Action


def _require_owner(actor, study: Study) -> None:
    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can sort proposals.")


@transaction.atomic
def proposal_decide(
    *,
    study: Study,
    actor,
    dimension_key: str,
    proposals: Sequence[str],
    action: str,
    target_lineage_id: str | None = None,
    new_category_name: str = "",
    reason: str = "",
) -> list[ProposalDecision]:
    """Record (or change) the decision on one or more proposal cards of one dimension."""
    _require_owner(actor, study)
    dimension = next((d for d in study_board_dimensions(study) if d.key == dimension_key), None)
    if dimension is None:
        raise DomainError(f"This study does not label '{dimension_key}'.", field="dimension")
    keys = list(dict.fromkeys(k for k in (proposal_key(p) for p in proposals) if k))
    if not keys:
        raise DomainError("Select at least one proposal card.", field="proposals")
    fields = {"action": action, "target_lineage_id": None, "new_category_name": "", "reason": "", "applied_to": None}
    if action == Action.ALIAS:
        target = Category.objects.filter(dimension=dimension, lineage_id=target_lineage_id, deprecated=False).first()
        if target is None:
            raise DomainError("Drop the card on a current category of this dimension.", field="target")
        fields["target_lineage_id"] = target.lineage_id
    elif action == Action.NEW:
        name = " ".join(new_category_name.split())
        if not name:
            raise DomainError("Name the new category.", field="name")
        fields["new_category_name"] = name[:200]
    elif action == Action.REJECT:
        reason = " ".join(reason.split())
        if not reason:
            raise DomainError("Say why the proposal is rejected; the raters will want to know.", field="reason")
        fields["reason"] = reason
    else:
        raise DomainError(f"Unknown action '{action}'.", field="action")
    decisions = []
    for key in keys:
        decision, _ = ProposalDecision.objects.update_or_create(
            study=study, dimension_key=dimension_key, proposal=key, defaults={**fields, "actor": actor}
        )
        decisions.append(decision)
    return decisions


@transaction.atomic
def proposal_decision_undo(*, study: Study, actor, dimension_key: str, proposal: str) -> None:
    """Put a card back on the board (decisions already applied to a draft stay applied there)."""
    _require_owner(actor, study)
    ProposalDecision.objects.filter(
        study=study, dimension_key=dimension_key, proposal=proposal_key(proposal) or "", applied_to__isnull=True
    ).delete()


@transaction.atomic
def cardsort_apply(*, study: Study, actor) -> TaxonomyVersion:
    """Apply the decisions not yet applied to a draft following the study's version; return the draft."""
    _require_owner(actor, study)
    version = study.taxonomy_version
    draft = version_draft_from(version=version, actor=actor) if version.is_published else version
    cards = {(card.dimension_key, card.key): card for column in cardsort_board(study=study) for card in column.cards}
    pending = list(ProposalDecision.objects.filter(study=study, applied_to__isnull=True).exclude(action=Action.REJECT))
    if not pending:
        raise DomainError("No sorted proposals to apply yet: drag some cards onto categories first.")
    new_groups: dict[tuple[str, str], list[ProposalDecision]] = {}
    for decision in pending:
        card = cards.get((decision.dimension_key, decision.proposal))
        texts = card.spellings if card else [decision.proposal]
        examples = [e["ref"] for e in card.examples] if card else []
        if decision.action == Action.ALIAS:
            target = Category.objects.filter(
                dimension__version=draft, dimension__key=decision.dimension_key, lineage_id=decision.target_lineage_id
            ).first()
            if target is None:
                raise DomainError(f"The category chosen for '{decision.proposal}' is no longer in the draft.")
            category_alias_add(category=target, actor=actor, aliases=texts, examples=examples)
        else:
            new_groups.setdefault((decision.dimension_key, decision.new_category_name), []).append(decision)
    for (dimension_key, name), decisions in new_groups.items():
        group_cards = [cards.get((dimension_key, d.proposal)) for d in decisions]
        texts = [t for card in group_cards if card for t in card.spellings]
        examples = [e["ref"] for card in group_cards if card for e in card.examples]
        issues = sum(card.issues for card in group_cards if card)
        existing = Category.objects.filter(
            dimension__version=draft, dimension__key=dimension_key, name__iexact=name, deprecated=False
        ).first()
        if existing is not None:
            category_alias_add(category=existing, actor=actor, aliases=texts, examples=examples)
        else:
            noun = "proposal" if len(decisions) == 1 else "proposals"
            existing = category_add(
                version=draft,
                actor=actor,
                dimension_key=dimension_key,
                name=name,
                aliases=[t for t in texts if t.casefold() != name.casefold()],
                examples=examples,
                note=f"from {len(decisions)} {noun} covering {issues} issues",
            )
        # The category the cards became, by lineage id: a move to the version carrying it turns each of these
        # proposals into this category on the proposing rater's annotation, also after a later rename.
        ProposalDecision.objects.filter(pk__in=[d.pk for d in decisions]).update(target_lineage_id=existing.lineage_id)
    ProposalDecision.objects.filter(pk__in=[d.pk for d in pending]).update(applied_to=draft)
    return draft
