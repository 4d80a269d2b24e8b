"""Pseudonyms for raters in published data: R1, R2, ... instead of names or accounts.

Pure Python, no Django.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def pseudonymise(
    raters: Iterable[str],
    *,
    key: Callable[[str], Any] | None = None,
    prefix: str = "R",
) -> dict[str, str]:
    """Map each distinct rater to ``R1``, ``R2``, ... by order of first appearance, or sorted by ``key``.

    The same input always gives the same mapping; a pseudonym is built from a counter only, never from the
    name. Give ``key`` (e.g. the date a rater joined) so that pseudonyms stay stable when the data is read
    in another order.
    """
    distinct: dict[str, None] = {}
    for rater in raters:
        if rater is None or not str(rater).strip():
            raise ValueError("A rater without a name was given; every labelled row needs the rater who made it.")
        distinct.setdefault(rater, None)
    ordered = sorted(distinct, key=key) if key is not None else list(distinct)
    return {rater: f"{prefix}{number}" for number, rater in enumerate(ordered, start=1)}


def redact(text: str, mapping: Mapping[str, str]) -> str:
    """``text`` with every mention of a rater (as a whole word, any case, with or without ``@``) replaced.

    For free text such as notes, where raters refer to each other by name. Longer names are replaced first
    so that "ann" does not eat part of "anna".
    """
    if not text or not mapping:
        return text
    names = sorted(mapping, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)@?(" + "|".join(re.escape(name) for name in names) + r")(?!\w)", re.IGNORECASE)
    lowered = {name.lower(): pseudonym for name, pseudonym in mapping.items()}
    return pattern.sub(lambda m: lowered[m.group(1).lower()], text)
