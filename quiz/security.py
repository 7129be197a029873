"""Security events as structured log lines (logger `quiz.security`, one JSON object a line in
production): failed logins and lockouts (django-axes logs its own too), rate limits and
refused imports; and the per-address limit on failed logins. Connected in `QuizConfig.ready`."""

import logging

from axes.helpers import get_client_ip_address
from axes.models import AccessFailureLog
from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver
from django.utils import timezone

from quiz.accounts.devices import note_seen

log = logging.getLogger("quiz.security")


def client_address(request):
    return request.META.get("REMOTE_ADDR", "") if request is not None else ""


# django-axes keeps the username tried in a column 255 characters long.
AXES_USERNAME_LENGTH = 255


def username_for_lockout(request, credentials):
    """The username a failed login is recorded and locked under (AXES_USERNAME_CALLABLE): the one
    typed, cut to what axes' table holds. No account's name is that long (150 at most), so a
    longer one is an ordinary failed login rather than a database error; the cut is the same when
    a lock is checked and when a failure is recorded."""
    source = credentials if credentials else getattr(request, "POST", {})
    username = source.get(settings.AXES_USERNAME_FORM_FIELD)
    return None if username is None else str(username)[:AXES_USERNAME_LENGTH]


def address_over_failure_limit(request, now=None):
    """Has this address used up its failed logins: LOGIN_FAILURES_PER_ADDRESS in the last
    LOGIN_FAILURE_WINDOW, whatever usernames they tried (refusals of a locked account count
    too: each is a failed login)? A sliding window over axes' log of failures, which records
    the address as axes sees it (behind proxies too), so the 51st failure within any 15
    minutes is the first refused, wherever the clock's quarter-hours fall. Failures only: a
    class logging in together from one address is not held back."""
    since = (now or timezone.now()) - settings.LOGIN_FAILURE_WINDOW
    recent = AccessFailureLog.objects.filter(ip_address=get_client_ip_address(request), attempt_time__gt=since)
    return recent.count() >= settings.LOGIN_FAILURES_PER_ADDRESS


@receiver(user_login_failed)
def log_failed_login(sender, credentials, request=None, **kwargs):
    # The username tried, never the password (Django already masks it in `credentials`).
    log.info(
        "login failed",
        extra={"event": "login_failed", "username": credentials.get("username", ""), "address": client_address(request)},
    )


@receiver(user_logged_in)
def mark_device_seen(sender, request=None, **kwargs):
    # The login writes the session anyway: the "last seen" mark rides along, and the pages that
    # follow need no write of their own for a while (quiz.accounts.devices).
    if request is not None and hasattr(request, "session"):
        note_seen(request.session)
