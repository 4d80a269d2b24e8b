"""Settings for the test suite: the production settings with plain-HTTP cookies and fast hashing."""

import os

# The test client speaks plain HTTP; everything else stays as in production.
for _name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
    os.environ.setdefault(_name, "0")
os.environ.setdefault("SECURE_HSTS_SECONDS", "0")
# DEBUG stays off as in production, which requires a key: a fixed one, for tests only.
os.environ.setdefault("SECRET_KEY", "tests-only-" + "k" * 50)

from .settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
