"""Pagination of the API's lists.

Issues use keyset ("cursor") pagination on the (-created, -id) index: a page costs the same at the
millionth row as at the first, and rows inserted while a client pages through never make it see a
row twice or skip one. Issues may have no creation date, so DRF's CursorPagination (which seeks on
the first ordering field alone) cannot be used: the cursor here is the issue list's own keyset.
Smaller, bounded lists keep limit/offset (core.pagination); both validate their parameters alike (1 to 200
rows, a bad value is a 400 naming it).
"""

from collections import OrderedDict
from typing import Any

from django.db import connections
from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from annotator.selectors.issues import CURSOR_PATTERN, Cursor, beyond_cursor
from core.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, BoundedLimitOffsetPagination, whole_number

__all__ = ["BoundedLimitOffsetPagination", "IssueCursorPagination"]


class IssueCursorPagination(BasePagination):
    """Keyset pagination over (-created, -id): ``?cursor=`` from the ``next`` / ``previous`` links."""

    cursor_query_param = "cursor"
    direction_query_param = "direction"
    page_size_query_param = "page_size"

    def _page_size(self, request: Request) -> int:
        return whole_number(request, self.page_size_query_param, low=1, high=MAX_PAGE_SIZE, default=DEFAULT_PAGE_SIZE)

    def _cursor(self, request: Request) -> tuple[Cursor | None, bool]:
        text = request.query_params.get(self.cursor_query_param)
        direction = request.query_params.get(self.direction_query_param, "next")
        if direction not in {"next", "previous"}:
            raise ValidationError({self.direction_query_param: ["Either 'next' or 'previous'."]})
        if text is None:
            return None, False
        cursor = Cursor.decode(text)
        if cursor is None:
            raise ValidationError(
                {self.cursor_query_param: ["This cursor is not one the API gave out; start again from the first page."]}
            )
        return cursor, direction == "previous"

    def paginate_queryset(self, queryset: QuerySet, request: Request, view=None) -> list:
        size = self._page_size(request)
        cursor, backwards = self._cursor(request)
        nulls_first = connections[queryset.db].features.nulls_order_largest
        queryset = queryset.order_by("-created", "-id")
        if cursor is not None:
            queryset = queryset.filter(beyond_cursor(cursor, older=not backwards, nulls_first=nulls_first))
        if backwards:
            rows = list(queryset.reverse()[: size + 1])
            page = list(reversed(rows[:size]))
            has_newer, has_older = len(rows) > size, True
        else:
            rows = list(queryset[: size + 1])
            page = rows[:size]
            has_newer, has_older = cursor is not None, len(rows) > size
        if not page:
            has_newer = has_older = False
        self.request = request
        self.next_cursor = Cursor.of(page[-1]).encode() if has_older else None
        self.previous_cursor = Cursor.of(page[0]).encode() if has_newer else None
        return page

    def _link(self, cursor: str | None, direction: str) -> str | None:
        if cursor is None:
            return None
        url = self.request.build_absolute_uri()
        url = replace_query_param(url, self.cursor_query_param, cursor)
        if direction == "next":
            return remove_query_param(url, self.direction_query_param)
        return replace_query_param(url, self.direction_query_param, direction)

    def get_paginated_response(self, data: Any) -> Response:
        return Response(
            OrderedDict(
                [
                    ("next", self._link(self.next_cursor, "next")),
                    ("previous", self._link(self.previous_cursor, "previous")),
                    ("results", data),
                ]
            )
        )

    def get_paginated_response_schema(self, schema: dict) -> dict:
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["results"],
            "properties": {"next": link, "previous": link, "results": schema},
        }

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "The cursor from a `next` or `previous` link; absent for the first page.",
                "schema": {"type": "string", "pattern": f"^{CURSOR_PATTERN}$"},
            },
            {
                "name": self.direction_query_param,
                "required": False,
                "in": "query",
                "description": "`next` (older issues, the default) or `previous` (newer issues).",
                "schema": {"type": "string", "enum": ["next", "previous"]},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": f"Issues per page, 1 to {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
            },
        ]
