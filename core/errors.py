"""Domain errors: raised by services, shown to people, so messages must say what to do."""


class DomainError(Exception):
    """A request that breaks a rule of the domain. The message is shown to the user."""

    status_code = 400

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class NotFoundError(DomainError):
    status_code = 404


class PermissionDeniedError(DomainError):
    status_code = 403


class ConflictError(DomainError):
    """Someone else changed the thing first (optimistic locking, a concurrent adjudication)."""

    status_code = 409
