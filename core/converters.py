"""URL converters. `<id:pk>` is `<int:pk>` bounded to the database's ids (a signed 64-bit integer).

An id of twenty digits matches `<id:>` and then breaks the query (SQLite cannot bind it); bounded
here, it simply matches no URL: 404 before any view runs.
"""

BIGINT_MAX = 2**63 - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > BIGINT_MAX:
            raise ValueError("beyond the range of ids")  # Django reads ValueError as "no match"
        return number

    def to_url(self, value: int) -> str:
        return str(value)
