import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Import the URLconf, and with it every view, while the worker boots: otherwise a rater's first request waits for it.
get_resolver().url_patterns  # noqa: B018
