"""The cached-database session engine on `UserSession`: sessions read from the shared cache
and written through to the table (a cache miss reads the row and its user in one query)."""

from django.contrib.sessions.backends import cached_db

from quiz.session_backends import UserSessionStoreMixin


class SessionStore(UserSessionStoreMixin, cached_db.SessionStore):
    cache_key_prefix = "quiz.session_backends.cached_db"
