"""Sign-in sessions (quiz.session_backends): the session row names its user, a signed-in
request reads both in one query, and every check Django makes on a session still holds."""

from datetime import timedelta

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quiz.models import User, UserSession
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
def test_sessions_from_before_the_move_are_kept_with_their_users():
    head = latest()
    try:
        old = migrate([("quiz", "0022_attemptslot_flagged"), ("sessions", "0001_initial")])
        learner = old.get_model("quiz", "User").objects.create(username="alice")
        codec = SessionBase()
        OldSession = old.get_model("sessions", "Session")
        later = timezone.now() + timedelta(days=1)
        OldSession.objects.create(session_key="a" * 32, expire_date=later,
                                  session_data=codec.encode({SESSION_KEY: str(learner.pk), "x": 1}))
        OldSession.objects.create(session_key="v" * 32, expire_date=later, session_data=codec.encode({"x": 2}))
        OldSession.objects.create(session_key="g" * 32, expire_date=later,
                                  session_data=codec.encode({SESSION_KEY: "999999"}))  # a deleted account
        OldSession.objects.create(session_key="e" * 32, expire_date=timezone.now() - timedelta(days=1),
                                  session_data=codec.encode({SESSION_KEY: str(learner.pk)}))
        apps = migrate(head)
        moved = {row.session_key[0]: row for row in apps.get_model("quiz", "UserSession").objects.all()}
        assert sorted(moved) == ["a", "g", "v"]  # the expired one stays behind
        assert moved["a"].user_id == learner.pk and codec.decode(moved["a"].session_data)["x"] == 1
        assert moved["v"].user_id is None and moved["g"].user_id is None
    finally:
        migrate(head)
