"""DRF's rate throttles, telling clients apart as the sign-in limits do (`core.network.client_address`, which
trusts proxy headers only when configured)."""

from rest_framework import throttling

from .network import client_address


class AnonRateThrottle(throttling.AnonRateThrottle):
    """DRF's AnonRateThrottle (rate "anon"), keyed by the client's address."""

    def get_ident(self, request) -> str:
        return client_address(request)


class UserRateThrottle(throttling.UserRateThrottle):
    """DRF's UserRateThrottle (rate "user"), keyed by user, else by the client's address."""

    def get_ident(self, request) -> str:
        return client_address(request)
