"""Sign-in sessions (quiz.session_backends): the session row names its user, a signed-in
request reads both in one query, and every check Django makes on a session still holds."""

from datetime import timedelta
from unittest import mock

import pytest
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore as DjangoSessionStore
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client, RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quiz.models import User, UserSession
from quiz.session_backends.db import SessionStore
from tests.factories import PASSWORD, make_user
from tests.test_migrations import latest, migrate

PAGE = "study_settings"  # a page only a signed-in user may open


def signed_in_client(username="dave"):
    user = make_user(username)
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return user, client


def queries_of_a_page(client):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse(PAGE))
    assert response.status_code == 200
    return [query["sql"] for query in captured.captured_queries]


def is_signed_out(client):
    response = client.get(reverse(PAGE))
    return response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.django_db
def test_a_signed_in_page_reads_the_session_and_its_user_in_one_query():
    _, client = signed_in_client()
    queries = queries_of_a_page(client)
    session_reads = [sql for sql in queries if "quiz_usersession" in sql]
    assert len(session_reads) == 1 and 'JOIN "quiz_user"' in session_reads[0]
    assert not [sql for sql in queries if 'FROM "quiz_user" WHERE' in sql]  # no second read of the user


@pytest.mark.django_db
def test_the_session_row_names_the_user_from_log_in_to_log_out():
    user, client = signed_in_client()
    key = client.session.session_key
    assert UserSession.objects.get(session_key=key).user == user
    client.post(reverse("logout"))
    assert not UserSession.objects.filter(session_key=key).exists()
    assert not UserSession.objects.filter(user=user).exists()
    assert is_signed_out(client)


@pytest.mark.django_db
def test_a_password_changed_elsewhere_signs_the_session_out():
    user, client = signed_in_client()
    user.set_password("another-long-passphrase")
    user.save()
    assert is_signed_out(client)
    assert not UserSession.objects.filter(user=user).exists()  # Django flushed it


@pytest.mark.django_db
def test_an_expired_session_is_not_read_and_its_user_is_signed_out():
    # The read is compiled once and checks the expiry after it (quiz.session_backends).
    user, client = signed_in_client()
    UserSession.objects.filter(user=user).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert is_signed_out(client)


@pytest.mark.django_db
def test_a_deactivated_account_is_signed_out():
    user, client = signed_in_client()
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert is_signed_out(client)


@pytest.mark.django_db
def test_a_session_naming_a_backend_no_longer_configured_is_signed_out():
    _, client = signed_in_client()
    session = client.session
    session[BACKEND_SESSION_KEY] = "somewhere.RemovedBackend"
    session.save()
    assert is_signed_out(client)


@pytest.mark.django_db
def test_a_session_whose_data_names_someone_else_than_its_row_trusts_the_data_as_django_does():
    # Cannot happen through the app; if it did, the row's user must not be the one signed in.
    user, client = signed_in_client()
    other = make_user("erin")
    UserSession.objects.filter(session_key=client.session.session_key).update(user=other)
    assert client.get(reverse(PAGE)).context["user"] == user


@pytest.mark.django_db
def test_deleting_an_account_deletes_its_sessions():
    user, client = signed_in_client()
    user.delete()
    assert not UserSession.objects.exists()
    assert is_signed_out(client)


@pytest.mark.django_db
@override_settings(
    CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
    SESSION_ENGINE="quiz.session_backends.cached_db",
)
def test_with_a_shared_cache_a_cache_miss_reads_the_session_and_user_in_one_query():
    cache.clear()
    user, client = signed_in_client()
    assert not [sql for sql in queries_of_a_page(client) if "quiz_usersession" in sql]  # from the cache
    cache.clear()  # say Redis restarted: the row is still there, nobody is signed out
    queries = queries_of_a_page(client)
    assert len([sql for sql in queries if "quiz_usersession" in sql]) == 1
    assert not [sql for sql in queries if 'FROM "quiz_user" WHERE' in sql]
    assert UserSession.objects.get(session_key=client.session.session_key).user == user


@pytest.mark.django_db(transaction=True)
def test_deleting_an_account_while_its_session_changes_key_saves_it_without_the_user_once():
    # A password change calls cycle_key(): an INSERT naming a deleted account must not retry forever.
    user, client = signed_in_client()
    store = SessionStore(client.cookies["sessionid"].value)
    assert store[SESSION_KEY] == str(user.pk)
    User.objects.filter(pk=user.pk).delete()  # an administrator deletes the account meanwhile
    keys = []
    new_key = SessionStore._get_new_session_key

    def counted_new_key(self):
        keys.append(1)
        if len(keys) > 5:
            raise RuntimeError("create() kept retrying")  # without the fix it would never stop
        return new_key(self)

    with mock.patch.object(SessionStore, "_get_new_session_key", counted_new_key):
        store.cycle_key()
    assert len(keys) == 1
    assert UserSession.objects.get(session_key=store.session_key).user_id is None
    assert isinstance(auth.get_user(_request_with(store)), AnonymousUser)  # it signs no one in


@pytest.mark.django_db(transaction=True)
def test_a_session_naming_a_deleted_account_can_still_be_written():
    UserSession.objects.create(session_key="g" * 32, expire_date=timezone.now() + timedelta(days=1),
                               session_data=SessionStore().encode({SESSION_KEY: "999999"}))
    store = SessionStore("g" * 32)
    store["token"] = "x"  # as the password reset view keeps its token
    store.save()
    assert SessionStore("g" * 32)["token"] == "x"


def _request_with(session):
    request = RequestFactory().get("/")
    request.session = session
    return request


OLD_SCHEMA = [("quiz", "0022_attemptslot_flagged"), ("sessions", "0001_initial")]


def old_session(old_apps, key, data, *, expires_in=timedelta(days=1)):
    # Written as Django's own engine wrote them before the move (its signing salt included).
    old_apps.get_model("sessions", "Session").objects.create(
        session_key=key * 32, expire_date=timezone.now() + expires_in, session_data=DjangoSessionStore().encode(data)
    )


@pytest.fixture
def before_the_move(transactional_db):
    """The schema before sessions moved (its apps, and a learner in it); the latest one after."""
    head = latest()
    old = migrate(OLD_SCHEMA)
    try:
        yield old, old.get_model("quiz", "User").objects.create(username="alice"), head
    finally:
        migrate(head)


def test_sessions_from_before_the_move_are_kept_with_their_users(before_the_move):
    old, learner, head = before_the_move
    old_session(old, "a", {SESSION_KEY: str(learner.pk), "x": 1})
    old_session(old, "v", {"x": 2})  # a visitor's
    old_session(old, "g", {SESSION_KEY: "999999"})  # signed in to an account deleted since
    old_session(old, "e", {SESSION_KEY: str(learner.pk)}, expires_in=-timedelta(days=1))
    apps = migrate(head)
    moved = {row.session_key[0]: row for row in apps.get_model("quiz", "UserSession").objects.all()}
    assert sorted(moved) == ["a", "v"]
    assert moved["a"].user_id == learner.pk and SessionStore("a" * 32)["x"] == 1
    assert moved["v"].user_id is None
    assert not apps.get_model("sessions", "Session").objects.exists()  # moved, not copied


def test_rolling_the_move_back_keeps_sessions_and_does_not_revive_one_signed_out_since(before_the_move):
    old, learner, head = before_the_move
    old_session(old, "a", {SESSION_KEY: str(learner.pk)})
    old_session(old, "b", {SESSION_KEY: str(learner.pk)})
    migrate(head)
    SessionStore("a" * 32).flush()  # signed out after the upgrade
    migrate([("quiz", "0022_attemptslot_flagged")])
    assert DjangoSessionStore("a" * 32).load() == {}
    assert DjangoSessionStore("b" * 32).load() == {SESSION_KEY: str(learner.pk)}


@pytest.mark.django_db
def test_clearsessions_deletes_the_expired_sessions_of_the_apps_table():
    user, client = signed_in_client()
    kept = client.session.session_key
    UserSession.objects.create(session_key="x" * 32, session_data=SessionStore().encode({}),
                               expire_date=timezone.now() - timedelta(minutes=1))
    call_command("clearsessions")
    assert list(UserSession.objects.values_list("session_key", flat=True)) == [kept]
