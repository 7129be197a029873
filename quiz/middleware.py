"""Middleware of the app: dates in each signed-in user's own time zone, a clear 400 for request
bodies in a charset the app cannot read, and private pages kept out of shared caches."""

from django.http import HttpResponseBadRequest
from django.utils import timezone
from django.utils.cache import patch_cache_control

from quiz.accounts.devices import note_seen


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


class DeviceLastSeenMiddleware:
    """Note when each signed-in device was last seen, for Settings' list of devices: the session
    is written at most every few minutes for it (quiz.accounts.devices.SEEN_EVERY)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.user.is_authenticated:
            note_seen(request.session)
        return self.get_response(request)


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
