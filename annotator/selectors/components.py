"""Reading a repository's component rules (the unmapped paths of its fixes: annotator.selectors.fixes)."""

from django.db.models import QuerySet

from annotator.models import ComponentRule, Repository


def component_rules_of(*, repository: Repository) -> QuerySet[ComponentRule]:
    return ComponentRule.objects.filter(repository=repository).order_by("position", "id")
