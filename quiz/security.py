"""Security events as structured log lines (logger `quiz.security`, one JSON object a line in
production): failed logins and lockouts (django-axes logs its own too), rate limits and
refused imports. Connected in `QuizConfig.ready`."""

import logging

from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver

log = logging.getLogger("quiz.security")


def client_address(request):
    return request.META.get("REMOTE_ADDR", "") if request is not None else ""


@receiver(user_login_failed)
def log_failed_login(sender, credentials, request=None, **kwargs):
    # The username tried, never the password (Django already masks it in `credentials`).
    log.info(
        "login failed",
        extra={"event": "login_failed", "username": credentials.get("username", ""), "address": client_address(request)},
    )
