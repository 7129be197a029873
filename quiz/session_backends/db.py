"""The database session engine on `UserSession`: a session and its user in one query."""

from django.contrib.sessions.backends import db

from quiz.session_backends import UserSessionStoreMixin


class SessionStore(UserSessionStoreMixin, db.SessionStore):
    loads_from_table = True
