import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Import the URLconf, and with it every view, while the worker boots: otherwise its first request pays ~1.3 s.
get_resolver().url_patterns  # noqa: B018
