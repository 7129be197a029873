"""What every page's template is given: the links of the site header and the tags of the
assets every page loads, both worked out once per process, and the page's CSRF token. The
question page is the page a learner loads most, and these were a third of the time it took to
render."""

import secrets
from functools import lru_cache

from django.middleware import csrf as django_csrf
from django.template.loader import render_to_string
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
    """`header_links.<name>` for each of HEADER_LINKS, `header_nav` (the header's links for
    this kind of visitor: signed in or not, instructor or not), and `head_assets` (the <link>
    and <script> tags of ASSETS and htmx). Eleven `{% url %}` tags were a quarter of the time a
    question page took to render, and the four static ones a tenth; the links' ten variables, a
    fifth of what rendering base.html still took, and the assets' four, a twentieth of the
    question page's function calls."""
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    script_prefix, urlconf = get_script_prefix(), get_urlconf()
    return {
        "header_links": _reversed(script_prefix, urlconf),
        "header_nav": _nav(script_prefix, urlconf, signed_in, signed_in and user.is_instructor),
        "head_assets": _head_assets(),
    }


# A few entries: the prefix comes from the server (SCRIPT_NAME), which a proxy might let vary.
@lru_cache(maxsize=8)
def _reversed(script_prefix, urlconf):
    return {name: reverse(name, urlconf=urlconf) for name in HEADER_LINKS}


# Rendered once per process, prefix and kind of visitor (so an edit of the template shows after a
# restart, as a deploy makes): the same links for every learner; their name stays in base.html.
@lru_cache(maxsize=32)
def _nav(script_prefix, urlconf, signed_in, instructor):
    links = _reversed(script_prefix, urlconf)
    return render_to_string("_header_nav.html", {"links": links, "signed_in": signed_in, "instructor": instructor})


# Hashed names come from the manifest `collectstatic` wrote, which changes only with a deploy
# (a new process). Not kept per script prefix as the links are: Django fixes STATIC_URL with the
# first prefix it sees. No nonce: the policy allows this site's own scripts (settings.CONTENT_SECURITY_POLICY).
@lru_cache(maxsize=1)
def _head_assets():
    addresses = {name: static(path) for name, path in ASSETS.items()}
    return render_to_string("_head_assets.html", {**addresses, "htmx": htmx_script()})


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
# {(secret character, shift): the cipher's character}: looked up, not worked out per character.
_SHIFTED = {
    (char, shift): _CHARS[(index + shift) % len(_CHARS)] for index, char in enumerate(_CHARS) for shift in range(len(_CHARS))
}


def _masked(secret):
    """Django's masking (mask + cipher, the cipher each secret character shifted by the mask's),
    which `django.middleware.csrf._unmask_cipher_token` undoes when the form comes back."""
    shifts = []
    while len(shifts) < len(secret):
        shifts += [byte % len(_CHARS) for byte in secrets.token_bytes(2 * len(secret)) if byte < _UNBIASED_BELOW]
    shifts = shifts[: len(secret)]
    mask = "".join(map(_CHARS.__getitem__, shifts))
    return mask + "".join(map(_SHIFTED.__getitem__, zip(secret, shifts)))
