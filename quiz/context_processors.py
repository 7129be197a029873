"""What every page's template is given: the links of the site header and the tags of the
assets every page loads, both worked out once per process (they are the same for every visitor
of a kind)."""

from functools import lru_cache

from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import get_script_prefix, get_urlconf, reverse
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
    and <script> tags of ASSETS and htmx)."""
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
