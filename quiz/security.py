"""Security events as structured log lines (logger `quiz.security`, one JSON object a line in
production): failed logins and lockouts (django-axes logs its own too), rate limits and
refused imports; and the per-address limit on failed logins. Connected in `QuizConfig.ready`."""

import logging

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django_ratelimit.core import get_usage
from django_ratelimit.decorators import ALL

log = logging.getLogger("quiz.security")


def client_address(request):
    return request.META.get("REMOTE_ADDR", "") if request is not None else ""


LOGIN_FAILURES = "login-failures"


def address_over_failure_limit(request, *, count=False):
    """Has this address failed to log in too often lately (counting this failure when `count`)?
    Failures only: a class logging in together from one address is not held back."""
    usage = get_usage(
        request, group=LOGIN_FAILURES, key="ip", rate=settings.RATELIMIT_LOGIN_FAILURES, method=ALL, increment=count
    )
    # The limit is how many failures are allowed: once they are used up, the next try waits.
    return usage is not None and usage["count"] >= usage["limit"]


@receiver(user_login_failed)
def log_failed_login(sender, credentials, request=None, **kwargs):
    # The username tried, never the password (Django already masks it in `credentials`).
    if request is not None:
        address_over_failure_limit(request, count=True)
    log.info(
        "login failed",
        extra={"event": "login_failed", "username": credentials.get("username", ""), "address": client_address(request)},
    )
