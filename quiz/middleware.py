"""Middleware of the app: the signed-in user read with the session, dates in each signed-in
user's own time zone, a clear 400 for request bodies in a charset the app cannot read,
private pages kept out of shared caches, content changes announced before a response leaves,
and compression only for pages big enough to be worth the server's time."""

from django.contrib import auth
from django.contrib.auth import middleware as auth_middleware
from django.http import HttpResponseBadRequest
from django.middleware import gzip
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.functional import SimpleLazyObject

from quiz.lib.content_changes import flush_due_generation
from quiz.session_backends import user_read_with_session


class AuthenticationMiddleware(auth_middleware.AuthenticationMiddleware):
    """Django's, except that `request.user` is the user the session's own query read (see
    `quiz.session_backends`) when the session vouches for them; otherwise Django's `get_user`.

    A view marked `reads_with_session` (quiz.views.access) has its first read made in the same
    statement as the session's: one round trip fewer on the pages a learner loads most."""

    def process_request(self, request):
        super().process_request(request)
        # Lazy until the view is known (process_view), as Django's; read then, for the rest.
        request.user = SimpleLazyObject(lambda: _signed_in_user(request))

    def process_view(self, request, view, view_args, view_kwargs):
        read = getattr(view, "read_with_session", None)
        session = request.session
        # Only the app's database engine can (its cached one reads the session from the cache).
        if read is not None and getattr(session, "can_read_with", None) and session.can_read_with():
            query, values = read(request, **view_kwargs)
            request.read_ahead = query, values, session.read_with(query, values)
        # A plain object from here on, not the lazy one: each of the hundred or so reads of a
        # lazy object's attributes a page makes (the header, the views, the middleware) went
        # through its proxy.
        request.user = _signed_in_user(request)


def _signed_in_user(request):
    # Cached where Django's middleware caches the synchronous user (`request.auser()`, unused
    # here, reads through Django's own get_user).
    if not hasattr(request, "_cached_user"):
        request._cached_user = user_read_with_session(request.session) or auth.get_user(request)
    return request._cached_user


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
    due dates appear in each learner's zone, and instructors type dates in theirs. Set when the
    view is known, after AuthenticationMiddleware has read the user with the view's first read
    (a request that finds no view, a 404, renders no date)."""

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
