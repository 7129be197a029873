"""Middleware of the app: dates in each signed-in
user's own time zone, a clear 400 for request bodies in a charset the app cannot read,
private pages kept out of shared caches, content changes announced before a response leaves,
and compression only for pages big enough to be worth the server's time."""

from django.http import HttpResponseBadRequest
from django.middleware import gzip
from django.utils import timezone
from django.utils.cache import patch_cache_control

from quiz.lib.content_changes import flush_due_generation


class ContentChangesMiddleware:
    """Outermost: a content change a view wrote outside a transaction gets its new generation
    (quiz.lib.content_changes) before the response leaves, so the page the browser goes to
    next already shows it (request_finished comes only after the response is sent)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        flush_due_generation()
        return response


class UserTimeZoneMiddleware:
    """Show and read dates in the signed-in user's own time zone (UTC for visitors):
    due dates appear in each learner's zone, and instructors type dates in theirs."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

    def process_view(self, request, view, view_args, view_kwargs):
        if request.user.is_authenticated:
            timezone.activate(request.user.zone)


# Forms are sent in the page's encoding, and every page here is UTF-8 (ASCII is a subset).
READABLE_CHARSETS = {"utf-8", "utf8", "us-ascii", "ascii"}


class RefuseUnreadableCharsetMiddleware:
    """Answer 400 to a request whose body claims another charset (`charset=utf-16`, or a name
    Python does not know), before anything reads it: Django would fail to decode it deep in
    the CSRF check or the form parser and answer 500. No page of this app sends one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        charset = request.content_params.get("charset") if request.method not in ("GET", "HEAD", "OPTIONS") else None
        if charset is not None and charset.strip().lower() not in READABLE_CHARSETS:
            return HttpResponseBadRequest("Send the form as UTF-8.", content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class PrivatePagesMiddleware:
    """`Cache-Control: private, no-store` on every response to a signed-in user (pages, HTMX
    fragments and CSV downloads alike): a shared cache or the back button after signing out
    must never show one learner's scores to someone else."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.user.is_authenticated or response.get("Content-Type", "").startswith("text/csv"):
            patch_cache_control(response, private=True, no_store=True)
        return response


# A TCP connection starts by sending ten packets (about 14 KB) before it waits for the reader:
# a page smaller than this, with its headers, arrives in that first flight compressed or not.
COMPRESSED_FROM_BYTES = 8 * 1024


class GZipMiddleware(gzip.GZipMiddleware):
    """Django's, for responses of COMPRESSED_FROM_BYTES or more (Django's own floor is 200
    bytes). A question page (3-6 KB) goes out in the same round trip either way on a new
    connection, and gzipping it (with the random padding against BREACH) took an eighth of the
    time the server spent on it. The trade: on a slow mobile link (1 Mbit/s) such a page takes
    some 20 ms longer to arrive; the home page and every page over 8 KB are still compressed."""

    def process_response(self, request, response):
        if not response.streaming and len(response.content) < COMPRESSED_FROM_BYTES:
            return response
        return super().process_response(request, response)
