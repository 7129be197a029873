"""Settings for the study app: one module, driven by environment variables.

DJANGO_ENV=production turns on the production posture (no DEBUG, a mandatory
secret key, hashed and compressed static files). Anything else is development.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value else default
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None

ENVIRONMENT = os.environ.get("DJANGO_ENV", "development")
if ENVIRONMENT not in {"development", "production"}:
    raise ImproperlyConfigured(f"DJANGO_ENV must be 'development' or 'production', not {ENVIRONMENT!r}")
PRODUCTION = ENVIRONMENT == "production"

DEBUG = env_bool("DJANGO_DEBUG", default=not PRODUCTION)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DJANGO_DEBUG must be off when DJANGO_ENV=production: it shows tracebacks and settings")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_ENV=production")
    SECRET_KEY = "development-only-insecure-key"  # never used in production, see above

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "" if PRODUCTION else "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    # Sessions that name their user (the accounts page lists a learner's signed-in devices). Before
    # Django's sessions app, whose own table only an old migration (quiz 0023) still reads.
    "qsessions",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "axes",
    "csp",
    # LTI 1.3: platform registrations, deployments, keys, and what launches said (users, courses,
    # memberships, resource links); quiz.lti turns them into accounts and classes.
    "lti_tool",
    "quiz",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages compressed, right after WhiteNoise (which serves its own pre-compressed files) and
    # above every middleware that reads or writes the body. Django pads each response against BREACH.
    "django.middleware.gzip.GZipMiddleware",
    "quiz.middleware.RefuseUnreadableCharsetMiddleware",
    "qsessions.middleware.SessionMiddleware",  # Django's, noting each session's device and address
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "quiz.middleware.UserTimeZoneMiddleware",
    "quiz.middleware.DeviceLastSeenMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "quiz.middleware.PrivatePagesMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a lockout into its response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "studyapp.urls"
WSGI_APPLICATION = "studyapp.wsgi.application"

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
                "quiz.context_processors.header_links",
            ],
        },
    },
]

# SQLite file by default; PostgreSQL (or anything dj-database-url knows) via DATABASE_URL.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite as a real server's database: writers queue instead of failing. IMMEDIATE takes the
    # write lock when a transaction starts (a read that later writes cannot be refused the
    # upgrade, which was "database is locked" at once); the busy timeout is how long a writer
    # waits for it; WAL lets pages read while an answer is being written.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_BUSY_TIMEOUT_SECONDS", 20),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        **DATABASES["default"].get("OPTIONS", {}),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "quiz.User"
# django-axes first: it refuses a locked-out account or address before the password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
# One way to write a date and a time on every page (studyapp/formats/en/formats.py).
FORMAT_MODULE_PATH = ["studyapp.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed, compressed files need `collectstatic`; development serves the sources as they are.
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage",
    },
}

if PRODUCTION:
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

QUIZ_PAGE_SIZE = 20
# Text pasted on the import page may be as large as a file the importer accepts (5 MB, which the
# form checks with a message); beyond this the request is refused before any view, with 400.html.
# Other forms stay far below. Uploaded files are streamed to disk and not counted here.
DATA_UPLOAD_MAX_MEMORY_SIZE = 12_000_000
# An Anki package (.apkg/.colpkg) with its images may be this large on the import page (other
# files: 5 MB). The proxy in front must let a request this large through (README, Deployment).
MAX_PACKAGE_BYTES = int(os.environ.get("DJANGO_MAX_PACKAGE_MB", "100")) * 1_000_000




# --- Shared cache: rate limits (and anything cached) hold across workers and servers --------------
# The database cache by default (`manage.py createcachetable`, run by `make migrate`); Redis
# when REDIS_URL is set (`pip install '.[redis]'`).
REDIS_URL = os.environ.get("REDIS_URL", "")
# Sessions in django-qsessions' table, whose row names the user (deleting an account ends its sessions).
SESSION_ENGINE = "qsessions.backends.db"
SILENCED_SYSTEM_CHECKS = []
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": REDIS_URL},
        "pages": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "pages"},
    }
    # Sessions read from Redis and written through to the database: a Redis restart signs no one out.
    SESSION_ENGINE = "qsessions.backends.cached_db"
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "django_cache"},
        # Kept pages in a table of their own: a busy hour of dashboards must not push the rate
        # limits' counters out of the default cache (the database cache culls past MAX_ENTRIES).
        "pages": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "django_cache_pages",
            "OPTIONS": {"MAX_ENTRIES": env_int("DJANGO_PAGE_CACHE_ENTRIES", 5000)},
        },
    }
    # django-ratelimit prefers a cache with atomic increments (Redis). On the database cache two
    # requests at the very same moment may both count as one; the limits still hold across
    # servers, which a per-process cache would not. Set REDIS_URL for exact counting.
    SILENCED_SYSTEM_CHECKS += ["django_ratelimit.E003", "django_ratelimit.W001"]
# A learner's dashboard is kept in the "pages" cache until anything it shows changes (their study, their
# settings, content and classes: quiz.progress.dashboard_cache) or this many seconds pass, the
# bound on figures that move with the clock alone (cards falling due). 0 turns it off.
DASHBOARD_CACHE_SECONDS = env_int("DJANGO_DASHBOARD_CACHE_SECONDS", 60)

# --- Failed logins (django-axes): per account and per address, stored in the database ---------------
AXES_FAILURE_LIMIT = env_int("DJANGO_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("DJANGO_LOGIN_COOLOFF_MINUTES", 15))
# Per account here; per address, a far higher limit on failed logins (below): a school's whole
# class shares one address, and five typos there must not lock everyone out.
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes warns when no lockout is keyed on the address (W006: rotating user agents or cookies
# would dodge a lock keyed on them). Ours is keyed on the account alone, which no rotation
# dodges, and the address has its own limit on failures (quiz.security).
SILENCED_SYSTEM_CHECKS += ["axes.W006"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_USERNAME_FORM_FIELD = "username"
AXES_USERNAME_CALLABLE = "quiz.security.username_for_lockout"  # any length typed is a plain failed login
# Every failed login is logged (refusals of a locked account too): the per-address limit below
# counts them over a sliding window (quiz.security). A daily `manage.py axes_reset_failure_logs
# --age 30` prunes the log (README, Deployment).
AXES_ENABLE_ACCESS_FAILURE_LOG = True
LOGIN_FAILURES_PER_ADDRESS = env_int("DJANGO_LOGIN_FAILURES_PER_ADDRESS", 50)
LOGIN_FAILURE_WINDOW = timedelta(minutes=env_int("DJANGO_LOGIN_FAILURE_WINDOW_MINUTES", 15))
# Behind N trusted proxies, the client's address is the Nth from the right in X-Forwarded-For.
AXES_IPWARE_PROXY_COUNT = env_int("DJANGO_PROXY_COUNT", 0) or None
AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"] if AXES_IPWARE_PROXY_COUNT else ["REMOTE_ADDR"]

# --- Sign-up and password reset (django-ratelimit), per address ------------------------------------
RATELIMIT_SIGNUP = os.environ.get("DJANGO_SIGNUP_RATE", "10/h")
RATELIMIT_PASSWORD_RESET = os.environ.get("DJANGO_PASSWORD_RESET_RATE", "5/h")
# Per email address typed, from any address: nobody can flood one inbox with reset emails.
RATELIMIT_PASSWORD_RESET_PER_EMAIL = os.environ.get("DJANGO_PASSWORD_RESET_EMAIL_RATE", "3/h")
# Per account: changing the address (each change emails two inboxes) or asking for a new link.
RATELIMIT_EMAIL_CHANGE = os.environ.get("DJANGO_EMAIL_CHANGE_RATE", "5/h")
RATELIMIT_IP_META_KEY = "HTTP_X_FORWARDED_FOR" if AXES_IPWARE_PROXY_COUNT else None

# --- Email: password reset links ----------------------------------------------------------------
# Development prints each email on the console (the reset link can be copied from there); production
# sends through the SMTP server the environment names. Tests use Django's in-memory outbox.
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if PRODUCTION else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 587 if env_bool("EMAIL_USE_TLS", PRODUCTION) else 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", PRODUCTION)
# A mail server that does not answer must not hold a web worker for long.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Certify <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Links in emails sent outside a request (reminders, their unsubscribe link) start with this.
# In production it defaults to HTTPS on the first allowed host: a 127.0.0.1 link in a reminder
# would reach nobody's server.
SITE_URL = os.environ.get(
    "DJANGO_SITE_URL",
    f"https://{ALLOWED_HOSTS[0]}" if PRODUCTION and ALLOWED_HOSTS else "http://127.0.0.1:8000",
).rstrip("/")
# An email verification link works for this long (and once).
EMAIL_VERIFICATION_TIMEOUT = 60 * 60 * env_int("DJANGO_EMAIL_VERIFICATION_HOURS", 72)
# A reset link works once (the token hashes the password and last login) and for this long.
PASSWORD_RESET_TIMEOUT = 60 * env_int("DJANGO_PASSWORD_RESET_TIMEOUT_MINUTES", 60)

# --- Headers: Content-Security-Policy (no inline scripts) and Permissions-Policy ---------------------
from csp.constants import NONE, SELF  # noqa: E402  (settings read best top to bottom)

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        # The mastery bars set their width in a style attribute; scripts get no such leeway.
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}
PERMISSIONS_POLICY = {
    feature: [] for feature in (
        "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone", "payment", "usb",
    )
}

# --- Images of sets and decks (quiz.content.media, served by quiz.views.media) -----------------------
# Stored through Django's storage API: under MEDIA_ROOT on this server by default; in an S3-compatible
# object store when DJANGO_MEDIA_S3_BUCKET is set, so that several app servers share them. Nothing
# serves them statically (MEDIA_URL is left unset): the app checks who may see each image, then
# streams it, or redirects to a URL the store signs for DJANGO_MEDIA_URL_SECONDS (objects stay private).
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", BASE_DIR / "media"))
RATELIMIT_IMAGE_UPLOAD = os.environ.get("DJANGO_IMAGE_UPLOAD_RATE", "60/h")  # per account, in the editor
MEDIA_S3_BUCKET = os.environ.get("DJANGO_MEDIA_S3_BUCKET", "")
if MEDIA_S3_BUCKET:
    MEDIA_S3_ENDPOINT_URL = os.environ.get("DJANGO_MEDIA_S3_ENDPOINT_URL", "").rstrip("/")
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            "endpoint_url": MEDIA_S3_ENDPOINT_URL or None,
            "region_name": os.environ.get("DJANGO_MEDIA_S3_REGION") or None,
            # Empty: boto3's own chain (an instance role, AWS_* variables, ~/.aws).
            "access_key": os.environ.get("DJANGO_MEDIA_S3_ACCESS_KEY_ID") or None,
            "secret_key": os.environ.get("DJANGO_MEDIA_S3_SECRET_ACCESS_KEY") or None,
            "querystring_auth": True,
            "querystring_expire": env_int("DJANGO_MEDIA_URL_SECONDS", 60),
            "default_acl": "private",
            "file_overwrite": False,
            "object_parameters": {"ContentDisposition": "inline", "CacheControl": "private, max-age=60"},
        },
    }
    # The browser follows the redirect to the store: its address may serve images to the pages.
    scheme, _, host = (MEDIA_S3_ENDPOINT_URL or "https://amazonaws.com").partition("://")
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["img-src"] += [f"{scheme}://{host}", f"{scheme}://*.{host}"]

# --- HTTPS: on by default in production, configurable for a proxy that terminates TLS --------------
if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", True)
    # A load balancer polls the health check over plain HTTP inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)
    if env_bool("DJANGO_BEHIND_PROXY", False):
        # The proxy says whether the visitor used HTTPS; only trust it behind a proxy that sets it.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Logging: one JSON object a line, for errors and security events ------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json"}},
    "loggers": {
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        "django.security": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        "axes": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        # A reset email the mail server refused (the learner still sees the "sent" page).
        "django.contrib.auth": {"handlers": ["stderr"], "level": "ERROR", "propagate": True},
        "quiz.security": {"handlers": ["stderr"], "level": "INFO", "propagate": True},
        # Reminder emails that failed (retried by the next run) or were given up.
        "quiz.reminders": {"handlers": ["stderr"], "level": "INFO", "propagate": True},
    },
}

# The mock exam's defaults (a learner may change them for each exam, within the form's bounds):
# how many questions, how many minutes, and the share right that passes.
MOCK_EXAM_QUESTIONS = env_int("MOCK_EXAM_QUESTIONS", 40)
MOCK_EXAM_MINUTES = env_int("MOCK_EXAM_MINUTES", 60)
MOCK_EXAM_PASS_PERCENT = env_int("MOCK_EXAM_PASS_PERCENT", 70)
