"""Limit/offset pagination of the API's lists, shared by every app (``taxonomy`` may not import ``annotator``).

Paging parameters are validated as the schema documents them: a ``limit`` outside 1 to 200, a negative
``offset`` or a word where a number belongs answers 400 naming the parameter, never a silently different
page.
"""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from core.numbers import ascii_int

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
MAX_OFFSET = 2**63 - 1  # the largest offset a database accepts


def whole_number(request: Request, name: str, *, low: int, high: int, default: int) -> int:
    """The query parameter ``name`` as a whole number from ``low`` to ``high``; absent: ``default``."""
    text = request.query_params.get(name)
    if text is None:
        return default
    number = ascii_int(text, max_digits=len(str(high)))
    if number is None or not low <= number <= high:
        raise ValidationError({name: [f"A whole number from {low} to {high}."]})
    return number


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """limit/offset with a ceiling, so one request cannot ask for the whole table."""

    default_limit = DEFAULT_PAGE_SIZE
    max_limit = MAX_PAGE_SIZE

    def get_limit(self, request: Request) -> int:
        return whole_number(request, self.limit_query_param, low=1, high=self.max_limit, default=self.default_limit)

    def get_offset(self, request: Request) -> int:
        return whole_number(request, self.offset_query_param, low=0, high=MAX_OFFSET, default=0)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": self.limit_query_param,
                "required": False,
                "in": "query",
                "description": f"Rows per page, 1 to {self.max_limit} (default {self.default_limit}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_limit},
            },
            {
                "name": self.offset_query_param,
                "required": False,
                "in": "query",
                "description": "How many rows to skip (default 0); follow the `next` and `previous` links.",
                "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "format": "int64"},
            },
        ]
