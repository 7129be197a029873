"""What every page's template is given: the links of the site header and the addresses of the
assets every page loads, both worked out once per process. The question page is the page a
learner loads most, and these were a third of the time it took to render."""

from functools import lru_cache

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
