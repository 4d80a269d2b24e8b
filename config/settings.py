"""Settings, all from the environment (see README, "Configuration").

Embedded default: no DATABASE_URL -> SQLite under var/; no CELERY_BROKER_URL -> tasks run
eagerly in-process. Production defaults are the safe ones: DEBUG is off unless asked for.
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("TAXONOMIST_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _secret_key() -> str:
    """SECRET_KEY from the environment; with DEBUG on (`make run`), else a random key kept in var/.

    Without DEBUG it is required: a key made up per container would differ between replicas (and change
    on every redeploy), so sessions, CSRF tokens and password-reset links would break at random.
    """
    if key := os.environ.get("SECRET_KEY"):
        return key
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (every web and worker process must share one key). "
            "Make one with: python -c 'import secrets; print(secrets.token_urlsafe(64))'"
        )
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(64))
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "core.apps.TaxonomistAdminConfig",  # django.contrib.admin, with the sign-in limits on its login
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "core",  # before staticfiles: its runserver command is the one `manage.py runserver` finds
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "taxonomy",
    "annotator",
]

MIDDLEWARE = [
    "core.middleware.HealthCheckMiddleware",  # first: probes call by address, not by an allowed host name
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.middleware.QueryParameterGuardMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.ContentSecurityPolicyMiddleware",
    "core.middleware.ApiNotFoundMiddleware",
    "core.middleware.UnavailablePartMiddleware",  # last: the first to see a view's exception
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.middleware.page_flags",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'taxonomist.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets requests read while another writes. A deferred transaction that reads and then writes
    # fails at once with "database is locked" when another writer got there first (waiting could
    # deadlock); IMMEDIATE takes the write lock at BEGIN, so concurrent writers queue for up to
    # `timeout` seconds instead. Reads outside transaction.atomic() are not affected. The engine is
    # Django's, with the writers of one process queued on a lock (core/sqlite/base.py says why).
    DATABASES["default"]["ENGINE"] = "core.sqlite"
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # a fresh clone has no var/ yet; SQLite does not create folders
    # The tests run threads against the database: an in-memory one has no WAL and fails instead of waiting.
    DATABASES["default"].setdefault("TEST", {}).setdefault("NAME", str(VAR_DIR / "test_taxonomist.sqlite3"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "core.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a rule: revokes the user's API token whenever a password change is saved (core/tokens.py).
    {"NAME": "core.tokens.RevokeTokensOnPasswordChange"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG and env_bool("STATIC_MANIFEST", True)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Request bodies (forms, and the API's JSON through core.parsers): past the size, 413; past the
# number of form fields or JSON keys, 400. Uploaded files are not counted here (IMPORT_UPLOAD_MAX_BYTES).
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("REQUEST_BODY_MAX_BYTES", str(int(2.5 * 1024 * 1024))))
DATA_UPLOAD_MAX_NUMBER_FIELDS = int(os.environ.get("REQUEST_MAX_FIELDS", "5000"))
API_JSON_MAX_KEYS = int(os.environ.get("API_JSON_MAX_KEYS", "10000"))
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Images in issue text come from other sites: shown only when a rater presses "Load images" on a
# page, unless this allows them everywhere (and lets the CSP's img-src reach https: on every page).
ISSUE_IMAGES_EXTERNAL = env_bool("ISSUE_IMAGES_EXTERNAL", False)
IMPORT_UPLOAD_MAX_BYTES = int(os.environ.get("IMPORT_UPLOAD_MAX_BYTES", str(200 * 1024 * 1024)))
# Replication packages come from other teams: the zip's files are checked against these before reading.
PACKAGE_MAX_UNCOMPRESSED_BYTES = int(os.environ.get("PACKAGE_MAX_UNCOMPRESSED_BYTES", str(2 * 1024**3)))
PACKAGE_MAX_ENTRY_BYTES = int(os.environ.get("PACKAGE_MAX_ENTRY_BYTES", str(1024**3)))
PACKAGE_MAX_ENTRIES = int(os.environ.get("PACKAGE_MAX_ENTRIES", "100"))
# Rater spreadsheets (the wizard and import_sheets): upload size, what a workbook may expand to, the
# rows and columns read, and how long an upload left in an unfinished wizard is kept.
SHEETS_UPLOAD_MAX_BYTES = int(os.environ.get("SHEETS_UPLOAD_MAX_BYTES", str(20 * 1024 * 1024)))
SHEETS_MAX_UNCOMPRESSED_BYTES = int(os.environ.get("SHEETS_MAX_UNCOMPRESSED_BYTES", str(200 * 1024 * 1024)))
SHEETS_MAX_ROWS = int(os.environ.get("SHEETS_MAX_ROWS", "100000"))
SHEETS_MAX_COLUMNS = int(os.environ.get("SHEETS_MAX_COLUMNS", "1000"))
SHEETS_MAX_CELLS = int(os.environ.get("SHEETS_MAX_CELLS", "200000"))
SHEETS_UPLOAD_RETENTION_HOURS = int(os.environ.get("SHEETS_UPLOAD_RETENTION_HOURS", "24"))

# Caching: Redis when configured (shared by all web workers), else per-process memory.
# An unreachable or hung Redis fails a request within seconds (answered 503, core.availability), not after the
# system's TCP timeout.
REDIS_CACHE_OPTIONS = {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2}
if REDIS_CACHE_URL := os.environ.get("CACHE_URL", ""):
    CACHES = {
        "default": {"BACKEND": "core.cache.RedisCache", "LOCATION": REDIS_CACHE_URL, "OPTIONS": REDIS_CACHE_OPTIONS}
    }
    # Sessions read through the shared cache (written to both): every request skips a database query.
    # Only with a shared cache: with per-process memory, a logout in one worker would not reach the others.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: eager (in-process) unless a broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE: dict = {}

# Periodic GitHub sync of every known repository (run `celery beat`): seconds ("3600") or a
# crontab ("0 3 * * *"); empty = off.
GITHUB_SYNC_SCHEDULE = os.environ.get("GITHUB_SYNC_SCHEDULE", "")
if GITHUB_SYNC_SCHEDULE:
    from celery.schedules import crontab

    CELERY_BEAT_SCHEDULE["github-sync-all"] = {
        "task": "annotator.github_sync_all",
        "schedule": float(GITHUB_SYNC_SCHEDULE)
        if GITHUB_SYNC_SCHEDULE.replace(".", "", 1).isdigit()
        else crontab.from_string(GITHUB_SYNC_SCHEDULE),
    }
# Jobs never hang: a running job writes a heartbeat every JOB_HEARTBEAT_SECONDS; one whose heartbeat
# is older than JOB_STALE_SECONDS lost its worker, and the reaper (every JOB_REAPER_SECONDS under
# `celery beat`, or `manage.py reap_jobs`) re-queues it, or fails it once JOB_MAX_ATTEMPTS workers
# died on it. The reaper also sends again the jobs saved "not queued" while the broker was down.
JOB_HEARTBEAT_SECONDS = float(os.environ.get("JOB_HEARTBEAT_SECONDS", "15"))
JOB_STALE_SECONDS = float(os.environ.get("JOB_STALE_SECONDS", "120"))
JOB_MAX_ATTEMPTS = int(os.environ.get("JOB_MAX_ATTEMPTS", "3"))
JOB_REAPER_SECONDS = float(os.environ.get("JOB_REAPER_SECONDS", "60"))
# A job still pending this long after it was sent is sent again (a worker killed after taking its
# message holds it until the broker's visibility timeout); duplicates are harmless, the claim decides.
JOB_PENDING_RESEND_SECONDS = float(os.environ.get("JOB_PENDING_RESEND_SECONDS", "900"))
if JOB_STALE_SECONDS < 2 * JOB_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured("JOB_STALE_SECONDS must be at least twice JOB_HEARTBEAT_SECONDS.")
if JOB_REAPER_SECONDS > 0:
    CELERY_BEAT_SCHEDULE["jobs-reap"] = {"task": "annotator.jobs_reap", "schedule": JOB_REAPER_SECONDS}
# Hourly: delete the spreadsheets of import wizards left unfinished for SHEETS_UPLOAD_RETENTION_HOURS.
CELERY_BEAT_SCHEDULE["sheets-uploads-clean"] = {"task": "annotator.sheets_uploads_clean", "schedule": 3600.0}
# A rate-limit wait longer than this re-schedules a Celery job instead of sleeping in the worker.
GITHUB_INLINE_WAIT_SECONDS = int(os.environ.get("GITHUB_INLINE_WAIT_SECONDS", "60"))

# GitHub (or GitHub Enterprise) REST API.
GITHUB_API_URL = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
GITHUB_TOKEN = os.environ.get("GITHUB_TOKEN", "")
# Where the issues' web pages live (their URLs name this host): set it for GitHub Enterprise.
GITHUB_WEB_HOST = os.environ.get("GITHUB_WEB_HOST", "github.com").lower()

# Abuse limits. Proxy headers (X-Forwarded-For) are trusted only when this many proxies stand in front
# of the app (0: use the connection's address); the API throttles and the sign-in limits both follow it.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Sign-in attempts per account and per address within a window; past either, sign-in waits for the window's end.
LOGIN_ATTEMPTS_PER_ACCOUNT = int(os.environ.get("LOGIN_ATTEMPTS_PER_ACCOUNT", "5"))
LOGIN_ATTEMPTS_PER_ADDRESS = int(os.environ.get("LOGIN_ATTEMPTS_PER_ADDRESS", "30"))
LOGIN_ATTEMPTS_WINDOW_SECONDS = int(os.environ.get("LOGIN_ATTEMPTS_WINDOW_SECONDS", "900"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # The API reads JSON bodies only (a form cannot say null, a list or a nested object): any other body
    # answers 415 before it is read.
    "DEFAULT_PARSER_CLASSES": ["core.parsers.BoundedJSONParser"],
    # OPTIONS is not part of the API (the schema describes every operation): it answers 405.
    "DEFAULT_METADATA_CLASS": None,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.AnonRateThrottle",
        "core.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_THROTTLE_ANON", "60/min"),
        # A rater's page autosaves at most every 1.5 s; scripts paging through the API stay well within this.
        "user": os.environ.get("API_THROTTLE_USER", "600/min"),
    },
    "EXCEPTION_HANDLER": "core.api.exception_handler",
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Taxonomist API",
    "DESCRIPTION": "Bug taxonomies, labelled issues, studies and inter-rater agreement.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI served from our own static files: no CDN, works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The error answers every operation can give, with their one body; no NUL in any request text (core.schema).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.add_common_errors",
        "core.schema.requests_as_checked",
    ],
    # `<id:...>` in URLs: an id the database can hold (core.converters.IdConverter).
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1, "format": "int64"}},
    # Choice sets that share a field name get names of their own (the schema must build without warnings).
    "ENUM_NAME_OVERRIDES": {
        "IssueKindEnum": "annotator.models.issues.Issue.Kind",
        "IssueStateEnum": "annotator.models.issues.Issue.State",
        "IssueLinkKindEnum": "annotator.models.issues.IssueLink.Kind",
        "ImportJobKindEnum": "annotator.models.imports.ImportJob.Kind",
        "ImportJobStatusEnum": "annotator.models.imports.ImportJob.Status",
        "AssignmentStatusEnum": "annotator.models.studies.Assignment.Status",
        "ResolutionStatusEnum": "annotator.models.studies.Resolution.Status",
        "ResolutionReasonEnum": "annotator.models.studies.Resolution.Reason",
    },
}

# Security. Behind TLS in production; each can be relaxed through the environment.
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the page's JavaScript reads it for fetch() calls
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    if env_bool("SECURE_PROXY_SSL_HEADER", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
