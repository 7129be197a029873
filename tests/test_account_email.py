"""An email address that is really the learner's: a signed, single-use link verifies it; only a
verified address gets a password reset; changing it tells the old address, which may undo it."""

import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quiz.accounts import emails
from quiz.models import User
from tests.factories import PASSWORD, make_user
from tests.helpers import logged_in

LINK = re.compile(r"https?://[^/\s]+(/accounts/(?:verify-email|email-change/undo)/[^/\s]+/)")


@pytest.fixture(autouse=True)
def fresh_limits(db):
    cache.clear()
    yield
    cache.clear()


def link_in(message):
    return LINK.search(message.body).group(1)


def sign_up(client, username, email):
    return client.post(reverse("signup"), {"username": username, "email": email, "time_zone": "UTC",
                                           "password1": "a-long-unusual-passphrase-42",
                                           "password2": "a-long-unusual-passphrase-42"}, follow=True)


def test_sign_up_with_an_email_sends_a_link_that_verifies_it_once(client, db, mailoutbox):
    response = sign_up(client, "maya", "maya@example.com")

    assert "open it to confirm the address is yours" in response.content.decode()
    [message] = mailoutbox
    assert message.to == ["maya@example.com"] and message.subject == "Confirm your email for Certify"
    assert User.objects.get(username="maya").email_verified is False

    # Any browser, signed in or not: the token says whose address it is. Opening the link shows
    # a button (a mail scanner following it confirms nothing); pressing it confirms.
    browser = Client()
    page = browser.get(link_in(message))
    assert page.status_code == 200 and "Is maya@example.com your address?" in page.content.decode()
    assert User.objects.get(username="maya").email_verified is False
    done = browser.post(link_in(message))
    assert done.status_code == 200 and "maya@example.com is confirmed" in done.content.decode()
    assert User.objects.get(username="maya").email_verified is True

    again = Client().post(link_in(message))
    assert again.status_code == 400 and "already used" in again.content.decode()
    assert "maya%40example.com" not in link_in(message) and "maya" not in link_in(message)  # no address in the URL


def test_sign_up_without_an_email_sends_nothing(client, db, mailoutbox):
    sign_up(client, "noor", "")

    assert not mailoutbox


@pytest.mark.parametrize("token", ["nonsense", "a" * 300, "eyJ1Ijo", "%00"])
def test_a_bad_link_gets_a_clear_page_and_verifies_nothing(client, db, token):
    make_user("maya", email="maya@example.com")

    response = client.post(f"/accounts/verify-email/{token}/")

    assert response.status_code in (400, 404)
    assert not User.objects.get(username="maya").email_verified


def test_an_expired_link_says_so(client, db, settings, mailoutbox):
    user = make_user("maya", email="maya@example.com")
    emails.send_verification(user)
    settings.EMAIL_VERIFICATION_TIMEOUT = -1

    response = client.post(link_in(mailoutbox[0]))

    assert response.status_code == 400 and "expired" in response.content.decode()
    assert not User.objects.get(username="maya").email_verified


def test_a_link_for_an_earlier_address_verifies_no_later_one_even_the_same_again(db, mailoutbox):
    user = make_user("maya", email="maya@example.com")
    emails.send_verification(user)
    first_link = link_in(mailoutbox[-1])
    emails.set_email(user, "maya@work.example")
    emails.set_email(user, "maya@example.com")  # back to the first: its old link must not verify it

    response = Client().post(first_link)

    assert response.status_code == 400 and "no longer uses" in response.content.decode()
    assert not User.objects.get(username="maya").email_verified


def test_changing_the_address_tells_the_old_one_and_verifies_the_new_one(db, mailoutbox):
    user = make_user("maya", email="maya@example.com", email_verified_at=timezone.now())
    client = logged_in(user)

    response = client.post(reverse("change_email"), {"email": "maya@work.example", "password": PASSWORD}, follow=True)

    assert "We sent a link to maya@work.example" in response.content.decode()
    user.refresh_from_db()
    assert (user.email, user.email_verified) == ("maya@work.example", False)
    notice, verification = mailoutbox
    assert notice.to == ["maya@example.com"] and "m***@work.example" in notice.body
    assert "maya@work.example" not in notice.body  # the old inbox learns enough to recognise it, no more
    assert verification.to == ["maya@work.example"]
    assert Client().post(link_in(verification)).status_code == 200
    user.refresh_from_db()
    assert user.email_verified


def test_the_old_address_may_undo_a_change_it_did_not_make_and_everyone_is_signed_out(db, mailoutbox):
    user = make_user("maya", email="maya@example.com", email_verified_at=timezone.now())
    thief = logged_in(user)
    thief.post(reverse("change_email"), {"email": "thief@example.net", "password": PASSWORD})
    undo = link_in(mailoutbox[0])
    # A second change (the notice goes nowhere: thief@ was never verified) does not defeat the
    # first undo link, nor does a squat: another account taking maya@ unverified.
    thief.post(reverse("change_email"), {"email": "thief2@example.net", "password": PASSWORD})
    squatter = make_user("squatter", email="maya@example.com")

    page = Client().get(undo)  # a mail scanner following the link changes nothing
    user.refresh_from_db()
    assert page.status_code == 200 and user.email == "thief2@example.net"

    owner = Client()
    owner.get(undo)
    response = owner.post(undo)

    user.refresh_from_db()
    assert response.status_code == 200 and "is back" in response.content.decode()
    assert (user.email, user.email_verified) == ("maya@example.com", True)
    assert thief.get(reverse("account_settings")).status_code == 302  # signed out: to the login page
    assert owner.post(undo).status_code == 400  # once
    squatter.refresh_from_db()
    assert squatter.email == ""
    assert len(mailoutbox) == 3  # the notice, and the two verification links the thief's changes sent


def test_removing_the_address_tells_the_old_one(db, mailoutbox):
    user = make_user("maya", email="maya@example.com", email_verified_at=timezone.now())

    logged_in(user).post(reverse("change_email"), {"email": "", "password": PASSWORD})

    user.refresh_from_db()
    [notice] = mailoutbox
    assert user.email == "" and notice.to == ["maya@example.com"] and "has no address now" in notice.body


def test_an_unverified_address_gets_no_reset_link_but_the_link_to_confirm_it_first(client, db, mailoutbox):
    make_user("maya", email="maya@example.com")

    response = client.post(reverse("password_reset"), {"email": "maya@example.com"})

    assert response.status_code == 302 and response.url == reverse("password_reset_done")  # the same page either way
    [message] = mailoutbox
    assert "/accounts/reset/" not in message.body
    assert "you asked for a new password" in message.body and link_in(message).startswith("/accounts/verify-email/")


def test_an_unverified_old_address_is_not_told_of_a_change(db, mailoutbox):
    user = make_user("maya", email="stranger@example.com")  # a typo, never confirmed

    logged_in(user).post(reverse("change_email"), {"email": "maya@example.com", "password": PASSWORD})

    assert [message.to for message in mailoutbox] == [["maya@example.com"]]  # the new address's link only


def test_changing_the_address_needs_the_password_and_the_field(db, mailoutbox):
    user = make_user("maya", email="maya@example.com", email_verified_at=timezone.now())
    client = logged_in(user)

    wrong = client.post(reverse("change_email"), {"email": "thief@example.net", "password": "guess"})
    missing = client.post(reverse("change_email"), {"password": PASSWORD})

    user.refresh_from_db()
    assert wrong.status_code == missing.status_code == 400
    assert "That is not your password." in wrong.content.decode()
    assert (user.email, user.email_verified, mailoutbox) == ("maya@example.com", True, [])


def test_the_account_page_offers_a_new_link_while_unverified(db, mailoutbox):
    user = make_user("maya", email="maya@example.com")
    client = logged_in(user)

    page = client.get(reverse("account_settings")).content.decode()
    assert "not confirmed yet" in page and reverse("send_verification") in page

    client.post(reverse("send_verification"))
    [message] = mailoutbox
    assert message.to == ["maya@example.com"]


def test_changing_the_address_is_limited_per_account(db, settings, mailoutbox):
    settings.RATELIMIT_EMAIL_CHANGE = "2/h"
    client = logged_in(make_user("maya"))

    codes = [client.post(reverse("change_email"), {"email": f"maya{n}@example.com", "password": PASSWORD}).status_code
             for n in range(3)]

    assert codes == [302, 302, 429]
    assert User.objects.get(username="maya").email == "maya1@example.com"


@pytest.mark.parametrize("email", ["not an address", "a@b@c", "x" * 300 + "@example.com"])
def test_a_bad_address_is_refused_with_a_message_and_changes_nothing(db, email, mailoutbox):
    user = make_user("maya", email="maya@example.com", email_verified_at=timezone.now())

    response = logged_in(user).post(reverse("change_email"), {"email": email, "password": PASSWORD})

    user.refresh_from_db()
    assert response.status_code == 400 and (user.email, user.email_verified) == ("maya@example.com", True)
    assert not mailoutbox


def test_a_mail_server_that_refuses_leaves_the_address_changed_and_logged(db, settings, caplog):
    user = make_user("maya")
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, False, 2

    response = logged_in(user).post(reverse("change_email"), {"email": "maya@example.com", "password": PASSWORD},
                                     follow=True)

    assert User.objects.get(pk=user.pk).email == "maya@example.com"
    assert "could not be sent just now" in response.content.decode()
    assert "email not sent" in caplog.text


def test_the_login_still_works_with_the_factory_password(db):
    make_user("maya")

    assert Client().post(reverse("login"), {"username": "maya", "password": PASSWORD}).status_code == 302
