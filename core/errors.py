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


class RateLimitedError(DomainError):
    """Too many attempts: refused until `retry_after` seconds have passed."""

    status_code = 429

    def __init__(self, message: str, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class UnavailableError(DomainError):
    """A service the request depends on (e.g. the job queue) cannot be reached; trying later may work."""

    status_code = 503
