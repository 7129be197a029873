"""Sign-in sessions (django-qsessions, stock AuthenticationMiddleware): the session row names its
user, device and address; Django's checks on a session hold; the sessions kept in the app's own
table before the move to qsessions come along, so nobody is signed out by the upgrade."""

from datetime import timedelta

import pytest
from django.contrib.auth import SESSION_KEY
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from qsessions.backends.db import SessionStore
from qsessions.models import Session

from tests.factories import PASSWORD, make_user
from tests.test_migrations import latest, migrate

PAGE = "study_settings"  # a page only a signed-in user may open


def signed_in_client(username="dave", user_agent="Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0"):
    user = make_user(username)
    client = Client(HTTP_USER_AGENT=user_agent)
    response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return user, client


def is_signed_out(client):
    response = client.get(reverse(PAGE))
    return response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.django_db
def test_the_session_row_names_the_user_and_device_from_log_in_to_log_out():
    user, client = signed_in_client()
    key = client.session.session_key
    row = Session.objects.get(session_key=key)
    assert (row.user, row.ip) == (user, "127.0.0.1") and "Firefox" in row.user_agent

    client.post(reverse("logout"))
    assert not Session.objects.filter(session_key=key).exists()
    assert not Session.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_a_password_changed_elsewhere_signs_the_session_out():
    user, client = signed_in_client()
    user.set_password("a-new-pass-phrase-9")
    user.save()
    assert is_signed_out(client)


@pytest.mark.django_db
def test_an_expired_session_signs_its_user_out():
    user, client = signed_in_client()
    Session.objects.filter(user=user).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert is_signed_out(client)


@pytest.mark.django_db
def test_a_deactivated_account_is_signed_out():
    user, client = signed_in_client()
    user.is_active = False
    user.save()
    assert is_signed_out(client)


@pytest.mark.django_db
def test_deleting_an_account_deletes_its_sessions():
    user, client = signed_in_client()
    user.delete()
    assert not Session.objects.exists()
    assert is_signed_out(client)


@pytest.mark.django_db
def test_clearsessions_deletes_the_expired_sessions():
    user, client = signed_in_client()
    kept = client.session.session_key
    Session.objects.create(session_key="x" * 32, session_data=SessionStore().encode({}),
                           expire_date=timezone.now() - timedelta(minutes=1))
    call_command("clearsessions")
    assert list(Session.objects.values_list("session_key", flat=True)) == [kept]


# --- The move from the app's own session table ------------------------------------------------

BEFORE_THE_MOVE = [("quiz", "0027_memory_question_first"), ("qsessions", "0002_session_created_at")]


@pytest.fixture
def before_the_move(transactional_db):
    """The schema before sessions moved to qsessions (its apps, and a learner in it); the latest after."""
    head = latest()
    old = migrate(BEFORE_THE_MOVE)
    try:
        yield old, old.get_model("quiz", "User").objects.create(username="alice"), head
    finally:
        migrate(head)


def old_session(old_apps, key, user_id, data, *, expires_in=timedelta(days=1)):
    # As the app's own engine wrote them: Django's encoding, signed with the store's class name.
    old_apps.get_model("quiz", "UserSession").objects.create(
        session_key=key * 32, expire_date=timezone.now() + expires_in, session_data=SessionStore().encode(data),
        user_id=user_id,
    )


def test_sessions_from_before_the_move_are_kept_with_their_users(before_the_move):
    old, learner, head = before_the_move
    old_session(old, "a", learner.pk, {SESSION_KEY: str(learner.pk), "x": 1})
    old_session(old, "v", None, {"x": 2})  # a visitor's
    old_session(old, "e", learner.pk, {SESSION_KEY: str(learner.pk)}, expires_in=-timedelta(days=1))

    apps = migrate(head)

    moved = {row.session_key[0]: row for row in apps.get_model("qsessions", "Session").objects.all()}
    assert sorted(moved) == ["a", "v"]
    assert moved["a"].user_id == learner.pk and SessionStore("a" * 32)["x"] == 1
    assert moved["v"].user_id is None and SessionStore("v" * 32)["x"] == 2


def test_a_session_moved_by_the_upgrade_still_signs_its_user_in(before_the_move):
    old, learner, head = before_the_move
    migrate(head)
    user = make_user("bob")
    client = Client()
    client.post(reverse("login"), {"username": "bob", "password": PASSWORD})
    key, data = client.session.session_key, dict(client.session.items())
    Session.objects.all().delete()
    old = migrate(BEFORE_THE_MOVE)  # as if the sign-in had happened before the upgrade
    old_session(old, key[0], user.pk, data)
    old.get_model("quiz", "UserSession").objects.filter(session_key=key[0] * 32).update(session_key=key)
    migrate(head)

    assert not is_signed_out(client)


def test_rolling_the_move_back_keeps_the_sessions(before_the_move):
    old, learner, head = before_the_move
    old_session(old, "a", learner.pk, {SESSION_KEY: str(learner.pk)})
    migrate(head)
    back = migrate(BEFORE_THE_MOVE)
    rows = back.get_model("quiz", "UserSession").objects.all()
    assert [(row.session_key, row.user_id) for row in rows] == [("a" * 32, learner.pk)]
