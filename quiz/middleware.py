"""Middleware of the app: dates in each signed-in user's own time zone."""

from django.utils import timezone


class UserTimeZoneMiddleware:
    """Show and read dates in the signed-in user's own time zone (UTC for visitors):
    due dates appear in each learner's zone, and instructors type dates in theirs."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.user.is_authenticated:
            timezone.activate(request.user.zone)
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
