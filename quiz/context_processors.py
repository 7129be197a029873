"""What every page's template is given: the links of the site header and the addresses of the
assets every page loads, both worked out once per process, and the page's CSRF token. The
question page is the page a learner loads most, and these were a third of the time it took to
render."""

import secrets
from functools import lru_cache

from django.middleware import csrf as django_csrf
from django.templatetags.static import static
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.functional import SimpleLazyObject
from django_htmx.jinja import htmx_script

# The header's links: pages that take no arguments.
HEADER_LINKS = (
    "home", "browse", "review_due", "library", "attempt_list", "my_classes", "teach_home", "study_settings",
    "logout", "login", "signup",
)

# The assets in every page's <head> (a page's own, like the dashboard's charts, use {% static %}).
ASSETS = {"css": "css/app.css", "favicon": "favicon.svg", "js": "js/app.js"}


def header_links(request):
    """`header_links.<name>` for each of HEADER_LINKS, and `assets.<name>` for each of ASSETS
    (with `assets.htmx`, the htmx <script> tag). Eleven `{% url %}` tags were a quarter of the
    time a question page took to render, and the four static ones a tenth."""
    return {"header_links": _reversed(get_script_prefix(), get_urlconf()), "assets": _assets()}


# A few entries: the prefix comes from the server (SCRIPT_NAME), which a proxy might let vary.
@lru_cache(maxsize=8)
def _reversed(script_prefix, urlconf):
    return {name: reverse(name, urlconf=urlconf) for name in HEADER_LINKS}


# Hashed names come from the manifest `collectstatic` wrote, which changes only with a deploy
# (a new process). No nonce: the policy allows this site's own scripts (settings.CONTENT_SECURITY_POLICY).
@lru_cache(maxsize=1)
def _assets():
    return {**{name: static(path) for name, path in ASSETS.items()}, "htmx": htmx_script()}


def csrf(request):
    """`csrf_token`, as Django's own processor (which runs before this one) gives it: the CSRF
    secret masked afresh for this response, so that compression cannot reveal it (BREACH).
    Only the mask is drawn differently: from one call for random bytes, where Django makes one
    system call per character, 30 us of each page that has a form."""
    return {"csrf_token": SimpleLazyObject(lambda: masked_csrf_token(request))}


def masked_csrf_token(request):
    """What `django.middleware.csrf.get_token` returns, with the same side effects: the
    cookie is sent again (its expiry renewed) with the response."""
    secret = request.META.get("CSRF_COOKIE")
    if secret is None or len(secret) != django_csrf.CSRF_SECRET_LENGTH:
        # No secret yet (a first visit, or CsrfViewMiddleware did not run), or one Django has
        # not checked (CSRF_USE_SESSIONS): Django's own way, which makes or refuses it.
        return django_csrf.get_token(request)
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True
    return _masked(secret)


_CHARS = django_csrf.CSRF_ALLOWED_CHARS  # 62 letters and digits
_UNBIASED_BELOW = 256 - 256 % len(_CHARS)  # bytes from here on would favour the first characters
_INDEX = {char: index for index, char in enumerate(_CHARS)}


def _masked(secret):
    """Django's masking (mask + cipher, the cipher each secret character shifted by the mask's),
    which `django.middleware.csrf._unmask_cipher_token` undoes when the form comes back."""
    shifts = []
    while len(shifts) < len(secret):
        shifts.extend(byte % len(_CHARS) for byte in secrets.token_bytes(2 * len(secret)) if byte < _UNBIASED_BELOW)
    shifts = shifts[: len(secret)]
    mask = "".join(_CHARS[shift] for shift in shifts)
    cipher = "".join(_CHARS[(_INDEX[char] + shift) % len(_CHARS)] for char, shift in zip(secret, shifts))
    return mask + cipher
