"""Sign up, log in, log out with our own templates."""

from django.urls import reverse

from quiz.models import User
from tests.factories import PASSWORD, make_user

NEW_PASSWORD = "a-long-unusual-passphrase-42"


def test_signing_up_creates_the_account_and_logs_in(client, db):
    response = client.post(
        reverse("signup"), {"username": "carol", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}, follow=True
    )

    assert User.objects.filter(username="carol").exists()
    assert response.context["user"].username == "carol"
    assert "Welcome, carol" in response.content.decode()


def test_sign_up_with_mismatched_passwords_shows_the_error_and_creates_nothing(client, db):
    response = client.post(reverse("signup"), {"username": "carol", "password1": NEW_PASSWORD, "password2": "other"})

    assert response.status_code == 200
    assert "didn’t match" in response.content.decode() or "didn't match" in response.content.decode()
    assert not User.objects.exists()


def test_sign_up_refuses_a_taken_username(client, db):
    make_user("carol")

    response = client.post(
        reverse("signup"), {"username": "carol", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )

    assert "already exists" in response.content.decode()
    assert User.objects.count() == 1


def test_a_signed_in_user_visiting_sign_up_goes_home(learner_client):
    assert learner_client.get(reverse("signup")).url == reverse("home")


def test_log_in_and_log_out(client, db):
    make_user("dave")

    response = client.post(reverse("login"), {"username": "dave", "password": PASSWORD}, follow=True)
    assert response.context["user"].is_authenticated

    response = client.post(reverse("logout"), follow=True)
    assert not response.context["user"].is_authenticated


def test_a_wrong_password_is_refused_with_a_message(client, db):
    make_user("dave")

    response = client.post(reverse("login"), {"username": "dave", "password": "nope"})

    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
    assert not response.context["user"].is_authenticated


def test_log_in_returns_to_the_page_asked_for(client, db):
    make_user("dave")

    response = client.post(
        reverse("login") + "?next=/attempts/", {"username": "dave", "password": PASSWORD, "next": "/attempts/"}
    )

    assert response.url == "/attempts/"
