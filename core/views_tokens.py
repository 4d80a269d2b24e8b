"""The personal API token page: create, regenerate and revoke the one token a user may have.

The key is shown once, in the response to the POST that made it, and never again: the page only
says when the token was created. Responses are not cached so the key does not linger in a cache.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from .tokens import token_issue, token_revoke

ACTIONS = {"create", "regenerate", "revoke"}


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    new_key = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ACTIONS:
            messages.error(request, "Choose create, regenerate or revoke.")
            return redirect("account_tokens")
        if action == "revoke":
            if token_revoke(user=request.user):
                messages.success(request, "Token revoked: requests with it are now refused.")
            else:
                messages.info(request, "You had no token.")
            return redirect("account_tokens")
        new_key = token_issue(user=request.user).key
    token = Token.objects.filter(user=request.user).only("created").first()
    return render(request, "account/tokens.html", {"token": token, "new_key": new_key})
