"""The address a request came from, trusting proxy headers only as far as the deployment says.

`X-Forwarded-For` is written by whoever sends the request: read as is, any client can claim any address
and so escape every per-address limit. Only when `TRUSTED_PROXY_COUNT` (N) proxies are known to stand in
front of the app is the header read, and then only the entry the N-th proxy from us added (the same rule
as DRF's NUM_PROXIES, so the API throttles and the sign-in limits agree on who a client is).
"""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _valid_address(value: str) -> str | None:
    value = value.strip()
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str:
    """The client's IP address: REMOTE_ADDR, or the trusted proxy's `X-Forwarded-For` entry."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies > 0 and forwarded:
        entries = forwarded.split(",")
        claimed = _valid_address(entries[-min(proxies, len(entries))])
        if claimed is not None:
            return claimed
    return remote
