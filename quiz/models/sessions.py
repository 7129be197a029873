"""Sign-in sessions in a table of the app's own, with a column naming the signed-in user."""

from django.conf import settings
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models


class UserSession(AbstractBaseSession):
    """Django's session row plus its user. Every signed-in request reads the session and the
    user in one query (a join, `quiz.session_backends`) instead of one each; deleting an
    account deletes its sessions with it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="sessions"
    )

    @classmethod
    def get_session_store_class(cls):
        from quiz.session_backends.db import SessionStore

        return SessionStore
