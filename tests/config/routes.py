"""The URL configuration as a flat list of routes, for tests that cover every URL."""

import re

from django.urls import URLPattern, URLResolver, get_resolver

PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def all_routes(patterns=None, prefix: str = ""):
    """Every route, e.g. "studies/<id:pk>/queue/", depth first."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            yield from all_routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)
