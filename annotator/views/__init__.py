"""Page views, one module per area; each module exposes its own `urlpatterns`."""
