"""Domain errors of the taxonomy app (shown to people: each says what to do)."""

from core.errors import ConflictError, DomainError


class TemplateError(DomainError):
    """A taxonomy template that cannot be loaded. `problems` has one line per problem: file, JSON path, what."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        noun = "problem" if len(problems) == 1 else "problems"
        super().__init__(f"The template was not loaded ({len(problems)} {noun}):\n" + "\n".join(problems))


class VersionImmutableError(ConflictError):
    """Published versions never change, so labels made under them keep their meaning."""
