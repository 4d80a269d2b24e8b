"""Writing a repository's component rules: replace, add, remove, reorder, and load the shipped starting file.

Every write checks each pattern and name with annotator.fixes.components (the reading every page and
the report share) and compiles the whole list, so a stored rule always matches the way it reads.
Writes to one repository's rules take that repository's row lock, so two editors never interleave
positions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Max

from annotator.fixes.components import (
    MAX_RULES,
    ComponentMatcher,
    PatternError,
    Rule,
    component_clean,
    pattern_clean,
)
from annotator.models import ComponentRule, Repository
from annotator.services.github_sync import github_repository_get_or_create, parse_repository_name
from core.errors import ConflictError, DomainError, NotFoundError

STARTING_RULES = Path(__file__).resolve().parent.parent / "data" / "components.json"
_MAX_FILE_BYTES = 1_000_000


def _rule_from(value: Any, index: int | None = None) -> Rule:
    where = f"Rule {index + 1}: " if index is not None else ""
    if isinstance(value, Rule):
        pattern, component = value.pattern, value.component
    elif isinstance(value, Mapping):
        pattern, component = value.get("pattern"), value.get("component")
    elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        pattern, component = value
    else:
        raise DomainError(f"{where}Give a pattern and a component.", field="rules")
    field = "pattern" if index is None else "rules"
    try:
        rule = Rule(pattern=pattern_clean(pattern), component=component_clean(component))
    except PatternError as exc:
        raise DomainError(f"{where}{exc}", field=field) from None
    if any(ord(c) < 32 or c == "\x7f" for c in rule.component):  # a NUL would reach the database
        raise DomainError(f"{where}A component's name cannot hold control characters.", field=field)
    return rule


def component_rules_clean(rules: Iterable[Any]) -> list[Rule]:
    """Checked rules in order, or DomainError naming the first one that cannot be stored."""
    cleaned: list[Rule] = []
    seen: set[str] = set()
    for index, value in enumerate(rules):
        if index >= MAX_RULES:
            raise DomainError(f"A repository has at most {MAX_RULES} component rules.", field="rules")
        rule = _rule_from(value, index)
        if rule.pattern in seen:  # a conflict between two rules, each fine on its own
            raise ConflictError(f"Rule {index + 1}: the pattern {rule.pattern} is already listed.", field="rules")
        seen.add(rule.pattern)
        cleaned.append(rule)
    _compiles(cleaned)
    return cleaned


def _compiles(rules: list[Rule]) -> None:
    try:
        ComponentMatcher(rules)
    except (PatternError, ValueError) as exc:
        raise DomainError(f"These rules cannot be read together: {exc}", field="rules") from None


def _locked(repository: Repository) -> Repository:
    return Repository.objects.select_for_update().get(pk=repository.pk)


def _renumber(repository: Repository, ordered: list[ComponentRule]) -> None:
    for position, rule in enumerate(ordered):
        rule.position = position
    ComponentRule.objects.bulk_update(ordered, ["position", "updated_at"])


@transaction.atomic
def component_rules_replace(*, repository: Repository, rules: Iterable[Any]) -> list[ComponentRule]:
    """The repository's rules become exactly `rules`, in that order (the first match wins)."""
    cleaned = component_rules_clean(rules)
    _locked(repository)
    ComponentRule.objects.filter(repository=repository).delete()
    return ComponentRule.objects.bulk_create(
        [
            ComponentRule(repository=repository, pattern=rule.pattern, component=rule.component, position=position)
            for position, rule in enumerate(cleaned)
        ]
    )


@transaction.atomic
def component_rule_add(*, repository: Repository, pattern: Any, component: Any) -> ComponentRule:
    """A rule at the end of the list (it matches only what the rules above leave)."""
    rule = _rule_from({"pattern": pattern, "component": component})
    _locked(repository)
    existing = list(ComponentRule.objects.filter(repository=repository).values_list("pattern", "component"))
    if len(existing) >= MAX_RULES:
        raise DomainError(f"A repository has at most {MAX_RULES} component rules.", field="pattern")
    if any(p == rule.pattern for p, _ in existing):
        raise ConflictError(f"The pattern {rule.pattern} is already listed.", field="pattern")
    _compiles([*(Rule(p, c) for p, c in existing), rule])
    last = ComponentRule.objects.filter(repository=repository).aggregate(last=Max("position"))["last"]
    return ComponentRule.objects.create(
        repository=repository, pattern=rule.pattern, component=rule.component, position=(last or 0) + 1
    )


def _rule_of(repository: Repository, rule_id: int) -> ComponentRule:
    rule = ComponentRule.objects.filter(repository=repository, pk=rule_id).first()
    if rule is None:
        raise NotFoundError(f"{repository.full_name} has no component rule #{rule_id}.")
    return rule


@transaction.atomic
def component_rule_remove(*, repository: Repository, rule_id: int) -> None:
    _locked(repository)
    _rule_of(repository, rule_id).delete()


@transaction.atomic
def component_rule_move(*, repository: Repository, rule_id: int, offset: int) -> None:
    """Move a rule up (offset -1) or down (+1); at either end it stays."""
    if offset not in (-1, 1):
        raise DomainError("A rule moves one place up or down.", field="offset")
    _locked(repository)
    ordered = list(ComponentRule.objects.filter(repository=repository).order_by("position", "id"))
    index = next((i for i, rule in enumerate(ordered) if rule.pk == rule_id), None)
    if index is None:
        raise NotFoundError(f"{repository.full_name} has no component rule #{rule_id}.")
    target = index + offset
    if 0 <= target < len(ordered):
        ordered[index], ordered[target] = ordered[target], ordered[index]
    _renumber(repository, ordered)


@dataclass
class ComponentLoadResult:
    loaded: dict[str, int] = field(default_factory=dict)  # repository -> rules written
    kept: list[str] = field(default_factory=list)  # repositories whose own rules were left alone


def component_rules_read_file(path: Path = STARTING_RULES) -> dict[str, list[Rule]]:
    """A rules file: {"repositories": {"owner/name": {"rules": [{"pattern", "component"}]}}}, each list checked."""
    if path.stat().st_size > _MAX_FILE_BYTES:
        raise DomainError(f"{path.name} is larger than {_MAX_FILE_BYTES // 1000} kB.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DomainError(f"{path.name} is not JSON ({exc}).") from None
    repositories = data.get("repositories") if isinstance(data, dict) else None
    if not isinstance(repositories, dict):
        raise DomainError(f'{path.name} has no "repositories" object.')
    rules = {}
    for full_name, entry in repositories.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("rules"), list):
            raise DomainError(f'{path.name}: {full_name} has no "rules" list.')
        try:
            rules[full_name] = component_rules_clean(entry["rules"])
        except DomainError as exc:
            raise DomainError(f"{path.name}: {full_name}: {exc.message}") from None
    return rules


@transaction.atomic
def component_rules_load(
    *, rules_by_repository: Mapping[str, list[Rule]], replace: bool = False
) -> ComponentLoadResult:
    """Give each named GitHub repository (created when not stored yet) its rules; with `replace` also those
    that already have rules of their own."""
    result = ComponentLoadResult()
    for full_name, rules in rules_by_repository.items():
        owner, name = parse_repository_name(full_name)
        repository = github_repository_get_or_create(owner=owner, name=name)
        if not replace and ComponentRule.objects.filter(repository=repository).exists():
            result.kept.append(repository.full_name)
            continue
        result.loaded[repository.full_name] = len(component_rules_replace(repository=repository, rules=rules))
    return result
