"""Session engines storing in `UserSession`: Django's database and cached-database engines,
except that reading a session's row reads its user with it (`select_related`), and the
authentication middleware (`quiz.middleware.AuthenticationMiddleware`) takes that user
instead of asking the database a second time. A signed-in page costs one query less.

SESSION_ENGINE is `quiz.session_backends.db`, or `quiz.session_backends.cached_db` with a shared
cache (REDIS_URL): that one reads the session from the cache, and the user costs a query."""

import logging

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends.base import CreateError
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from quiz.lib.prepared import PreparedQuery


class UserSessionStoreMixin:
    """What both engines change in Django's: the model, its user column, the joined read."""

    # The user read with the session's row (None: no row read, or a visitor's).
    user_of_row = None
    # Set when the data names an account deleted meanwhile: the row is then saved without it.
    _without_user = False

    @classmethod
    def get_model_class(cls):
        from quiz.models import UserSession

        return UserSession

    def create_model_instance(self, data):
        row = super().create_model_instance(data)
        row.user_id = None if self._without_user else data.get(SESSION_KEY)
        return row

    async def acreate_model_instance(self, data):
        row = await super().acreate_model_instance(data)
        row.user_id = None if self._without_user else data.get(SESSION_KEY)
        return row

    def save(self, must_create=False):
        # The user column is a shortcut for reading, not the sign-in itself (the data is): when
        # the account it names was deleted during this request, the row is saved without it,
        # and Django's get_user finds no such user next time. Without this a key change
        # (`cycle_key`, on a password change) would retry its INSERT forever, and any other
        # write would fail with a 500.
        try:
            return super().save(must_create=must_create)
        except (IntegrityError, CreateError):
            if self._without_user or not self._names_a_deleted_account():
                raise  # a taken key (CreateError, which create() retries) or another failure
            self._without_user = True
            return super().save(must_create=must_create)

    def _names_a_deleted_account(self):
        user_id = getattr(self, "_session_cache", {}).get(SESSION_KEY)
        return user_id is not None and not get_user_model()._base_manager.filter(pk=user_id).exists()

    # Whether `load` reads the session's row from the table (the cached engine asks its cache first).
    loads_from_table = False

    def can_read_with(self):
        """Whether `read_with` can read this session's row now: a key to read, not read yet."""
        return self.loads_from_table and self.session_key is not None and not hasattr(self, "_session_cache")

    def read_with(self, query, values):
        """`query`'s first row for `values` (a PreparedQuery), read in the same statement as this
        session's row, which `load` then takes instead of reading it: a signed-in page's first
        read and its session in one round trip (`quiz.middleware.AuthenticationMiddleware`).
        None when `query` finds nothing, or when there is no session row to read it with."""
        try:
            row, found = _SESSION_WITH_USER.first_with({"session_key": self.session_key}, query, values)
        except SuspiciousOperation as error:
            _log_suspicious(error)
            row, found = None, None
        self._row_read_ahead = self.session_key, row
        return found

    def _get_session_from_db(self):
        # Django's own read (backends.db), joined to the user, compiled once; the expiry is
        # checked here rather than in SQL, so the statement is the same on every request.
        # The row read ahead, only for the key it was read with (a key cycled since is read afresh).
        key, row = self.__dict__.pop("_row_read_ahead", (None, _NOT_READ))
        if row is _NOT_READ or key != self.session_key:
            try:
                row = _SESSION_WITH_USER.first(session_key=self.session_key)
            except SuspiciousOperation as error:
                _log_suspicious(error)
                row = None
        if row is None or row.expire_date <= timezone.now():
            self._session_key = None
            return None
        self.user_of_row = row.user
        return row


_NOT_READ = object()


def _log_suspicious(error):
    logging.getLogger(f"django.security.{error.__class__.__name__}").warning(str(error))


def _session_with_user(session_key):
    from quiz.models import UserSession

    return UserSession.objects.select_related("user").filter(session_key=session_key)


# Every signed-in request runs this read: building and compiling it took longer than the
# database took to answer it. The placeholder is no key Django makes (those are 32 characters).
_SESSION_WITH_USER = PreparedQuery(_session_with_user, session_key="prepared:session-key")


def user_read_with_session(session):
    """The user the session's row brought along, if the session vouches for them exactly as
    `django.contrib.auth.get_user` checks it: the same id, a configured backend that signs in
    active users by id, and the password hash of the sign-in. None otherwise, and Django's
    `get_user` decides (a query more; it also signs out a session whose password changed)."""
    user_id = session.get(SESSION_KEY)  # loads the session, and with its row the user
    user = getattr(session, "user_of_row", None)
    if user is None or user_id != str(user.pk):
        return None
    backend_path = session.get(BACKEND_SESSION_KEY)
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    backend = load_backend(backend_path)
    if not isinstance(backend, ModelBackend) or not backend.user_can_authenticate(user):
        return None
    session_hash = session.get(HASH_SESSION_KEY)
    if not session_hash or not constant_time_compare(session_hash, user.get_session_auth_hash()):
        return None
    return user
