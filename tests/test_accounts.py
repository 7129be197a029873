"""Sign up (with an optional email), log in, log out, and reset a forgotten password by email,
all with our own templates."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from quiz.models import User
from tests.factories import PASSWORD, make_user

ROOT = Path(__file__).resolve().parent.parent
NEW_PASSWORD = "a-long-unusual-passphrase-42"
RESET_LINK = re.compile(r"http://testserver(/accounts/reset/[^/\s]+/[^/\s]+/)")


@pytest.fixture(autouse=True)
def fresh_limits(db):
    cache.clear()  # the reset's rate-limit counters live in the shared cache
    yield
    cache.clear()


def sign_up(client, username, email=""):
    return client.post(reverse("signup"), {
        "username": username, "email": email, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD,
    })


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


# --- Email at sign-up and in settings --------------------------------------------------------------

def test_signing_up_without_an_email_is_fine(client, db):
    assert sign_up(client, "carol").status_code == 302

    assert User.objects.get(username="carol").email == ""


def test_signing_up_with_an_email_keeps_it_with_the_domain_in_lower_case(client, db):
    assert sign_up(client, "carol", " Carol@Example.COM ").status_code == 302

    assert User.objects.get(username="carol").email == "Carol@example.com"


def test_sign_up_refuses_an_invalid_email_and_creates_nothing(client, db):
    response = sign_up(client, "carol", "carol-at-example")

    assert response.status_code == 200
    assert "Enter a valid email address." in response.content.decode()
    assert not User.objects.exists()


def test_sign_up_refuses_an_email_another_account_has_in_any_letter_case(client, db):
    make_user("alice", email="alice@example.com")

    response = sign_up(client, "carol", "ALICE@example.com")

    assert "Another account already uses this email address." in response.content.decode()
    assert list(User.objects.values_list("username", flat=True)) == ["alice"]


def test_many_accounts_may_have_no_email(db):
    make_user("alice"), make_user("bob")

    assert User.objects.filter(email="").count() == 2


def test_the_database_refuses_a_shared_email_whatever_its_case(db):
    make_user("alice", email="alice@example.com")

    with pytest.raises(IntegrityError), transaction.atomic():
        make_user("bob", email="Alice@Example.com")


def test_a_learner_adds_and_changes_their_email_on_the_account_page(learner_client, learner):
    assert 'name="email"' in learner_client.get(reverse("account_settings")).content.decode()

    assert learner_client.post(reverse("change_email"), {"email": "alice@example.com", "password": PASSWORD}).status_code == 302
    learner.refresh_from_db()
    assert learner.email == "alice@example.com"

    # The same address again (another case) is not "taken" by oneself, and changes nothing.
    response = learner_client.post(reverse("change_email"), {"email": "ALICE@example.com", "password": PASSWORD}, follow=True)
    assert "That is already your address." in response.content.decode()


def test_the_account_page_refuses_another_accounts_email_and_changes_nothing(learner_client, learner, mailoutbox):
    make_user("bob", email="bob@example.com")

    response = learner_client.post(reverse("change_email"), {"email": "Bob@example.com", "password": PASSWORD})

    learner.refresh_from_db()
    assert response.status_code == 400
    assert "Another account already uses this email address." in response.content.decode()
    assert learner.email == "" and not mailoutbox


def test_study_settings_link_to_the_account_page_which_links_to_changing_the_password(learner_client):
    assert reverse("account_settings") in learner_client.get(reverse("study_settings")).content.decode()
    assert reverse("password_change") in learner_client.get(reverse("account_settings")).content.decode()

    page = learner_client.get(reverse("password_change")).content.decode()
    assert "<h1>Change your password</h1>" in page and "Django administration" not in page


# --- Password reset ----------------------------------------------------------------------------------

def can_log_in(username, password):
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def ask_for_a_reset(client, email):
    return client.post(reverse("password_reset"), {"email": email})


def reset_link_in(message):
    return RESET_LINK.search(message.body).group(1)


def test_the_login_page_offers_a_password_reset(client, db):
    assert f'href="{reverse("password_reset")}"' in client.get(reverse("login")).content.decode()


@pytest.mark.parametrize("name", ["password_reset", "password_reset_done", "password_reset_complete"])
def test_the_reset_pages_are_the_apps_own(client, db, name):
    page = client.get(reverse(name)).content.decode()

    assert 'class="site-header"' in page and "Django administration" not in page


def test_asking_for_a_reset_emails_a_link_to_the_accounts_address(client, db, mailoutbox):
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())

    response = ask_for_a_reset(client, "Alice@Example.com")

    assert response.status_code == 302 and response.url == reverse("password_reset_done")
    [message] = mailoutbox
    assert message.to == ["alice@example.com"]
    assert message.subject == "Reset your Certify password"
    assert "alice" in message.body and "works once, for the next 1 h" in message.body
    assert reset_link_in(message).startswith("/accounts/reset/")


def test_an_unknown_email_gets_the_same_page_and_no_email(client, db, mailoutbox):
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())

    known = ask_for_a_reset(client, "alice@example.com")
    unknown = ask_for_a_reset(client, "nobody@example.com")

    assert unknown.status_code == known.status_code == 302 and unknown.url == known.url
    assert len(mailoutbox) == 1
    done = client.get(unknown.url).content.decode()
    assert "<h1>Check your email</h1>" in done


def test_an_invalid_email_is_refused_on_the_form(client, db, mailoutbox):
    response = ask_for_a_reset(client, "not an address")

    assert response.status_code == 200 and "Enter a valid email address." in response.content.decode()
    assert not mailoutbox


def set_new_password(client, link, password=NEW_PASSWORD):
    """Follow the emailed link (Django moves the token into the session and redirects), then submit."""
    form_url = client.get(link).url
    return client.post(form_url, {"new_password1": password, "new_password2": password})


def test_the_link_sets_a_new_password_once(db, mailoutbox):
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    client = Client()
    ask_for_a_reset(client, "alice@example.com")
    link = reset_link_in(mailoutbox[0])

    form_page = client.get(link, follow=True).content.decode()
    assert "<h1>Choose a new password</h1>" in form_page
    response = set_new_password(client, link)

    assert response.status_code == 302 and response.url == reverse("password_reset_complete")
    assert can_log_in("alice", NEW_PASSWORD)
    # The token hashed the old password: the same link now shows the app's "does not work" page.
    again = Client().get(link, follow=True)
    assert again.status_code == 200
    assert "<h1>This link does not work</h1>" in again.content.decode()
    assert reverse("password_reset") in again.content.decode()


def test_a_mismatched_new_password_is_refused_and_the_link_still_works(db, mailoutbox):
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    client = Client()
    ask_for_a_reset(client, "alice@example.com")
    link = reset_link_in(mailoutbox[0])
    form_url = client.get(link).url

    response = client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": "something-else-42"})

    assert response.status_code == 200 and "didn’t match" in response.content.decode()
    assert User.objects.get(username="alice").check_password(PASSWORD)
    assert set_new_password(Client(), link).url == reverse("password_reset_complete")


def test_an_expired_link_does_not_work(client, db, settings):
    alice = make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    generator = default_token_generator
    # A token made just over PASSWORD_RESET_TIMEOUT ago, as the email would have carried then.
    made_at = generator._num_seconds(generator._now()) - settings.PASSWORD_RESET_TIMEOUT - 1
    token = generator._make_token_with_timestamp(alice, made_at, generator.secret)
    link = reverse("password_reset_confirm", args=[urlsafe_base64_encode(force_bytes(alice.pk)), token])

    response = client.get(link, follow=True)

    assert "<h1>This link does not work</h1>" in response.content.decode()
    assert client.post(link, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}).status_code == 200
    assert can_log_in("alice", PASSWORD)


def test_a_link_made_within_the_timeout_works(client, db, settings):
    alice = make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    generator = default_token_generator
    made_at = generator._num_seconds(generator._now()) - settings.PASSWORD_RESET_TIMEOUT + 60
    token = generator._make_token_with_timestamp(alice, made_at, generator.secret)
    link = reverse("password_reset_confirm", args=[urlsafe_base64_encode(force_bytes(alice.pk)), token])

    assert set_new_password(client, link).url == reverse("password_reset_complete")


@pytest.mark.parametrize("uidb64, token", [
    ("MQ", "abc-def"), ("!!!", "x"), ("AA", "set-password"), ("z" * 300, "1-" + "f" * 200),
    ("OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5", "c2-0123456789abcdef"), ("%00", "%FF"), ("LTE", "a-b"),
])
def test_garbage_links_show_the_invalid_page_never_an_error(db, uidb64, token):
    client = Client(raise_request_exception=False)
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    url = f"/accounts/reset/{uidb64}/{token}/"

    for response in (client.get(url, follow=True), client.post(url, {"new_password1": "x", "new_password2": "x"})):
        assert response.status_code == 200
        assert "<h1>This link does not work</h1>" in response.content.decode()


def test_a_new_password_lifts_a_lockout_from_failed_logins(db, mailoutbox, settings):
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    for _ in range(settings.AXES_FAILURE_LIMIT):
        Client().post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert AccessAttempt.objects.filter(username="alice").exists()
    client = Client()
    ask_for_a_reset(client, "alice@example.com")

    set_new_password(client, reset_link_in(mailoutbox[0]))

    assert not AccessAttempt.objects.filter(username="alice").exists()
    response = Client().post(reverse("login"), {"username": "alice", "password": NEW_PASSWORD})
    assert response.status_code == 302 and response.url == reverse("home")


def test_resets_for_one_email_are_limited_from_any_address(db, settings, mailoutbox):
    settings.RATELIMIT_PASSWORD_RESET_PER_EMAIL = "2/h"
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    for n, email in enumerate(["alice@example.com", " ALICE@example.com"]):
        response = Client().post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=f"198.51.100.{n}")
        assert response.status_code == 302

    response = Client().post(reverse("password_reset"), {"email": "alice@example.com"}, REMOTE_ADDR="198.51.100.9")

    assert response.status_code == 429 and len(mailoutbox) == 2
    # Another inbox is not held back by alice's.
    assert Client().post(reverse("password_reset"), {"email": "bob@example.com"}, REMOTE_ADDR="198.51.100.9").status_code == 302


def test_a_mail_server_that_refuses_is_logged_not_an_error(client, db, settings, caplog):
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    # A real SMTP connection to a port where nothing listens.
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, False, 2

    response = ask_for_a_reset(client, "alice@example.com")

    assert response.status_code == 302 and response.url == reverse("password_reset_done")
    assert "Failed to send password reset email" in caplog.text


def test_a_signed_in_learner_may_reset_too(learner_client, learner, mailoutbox):
    learner.email, learner.email_verified_at = "alice@example.com", timezone.now()
    learner.save(update_fields=["email", "email_verified_at"])

    assert ask_for_a_reset(learner_client, "alice@example.com").status_code == 302
    assert len(mailoutbox) == 1


# --- Email settings, read from the environment --------------------------------------------------------

EMAIL_SETTINGS = ("EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS",
                  "DEFAULT_FROM_EMAIL", "PASSWORD_RESET_TIMEOUT")


def settings_under(**env):
    """The email settings a fresh process reads from this environment (tests swap the backend)."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("EMAIL_", "DEFAULT_FROM"))}
    code = ("import json; from django.conf import settings as s; "
            f"print(json.dumps({{name: getattr(s, name) for name in {EMAIL_SETTINGS!r}}}))")
    result = subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], cwd=ROOT,
                            env={**clean, "DJANGO_SETTINGS_MODULE": "studyapp.settings", **env},
                            capture_output=True, text=True)
    return result.returncode, (json.loads(result.stdout) if result.returncode == 0 else result.stderr)


def test_development_prints_emails_on_the_console_and_links_last_an_hour():
    code, values = settings_under(DJANGO_ENV="development")

    assert code == 0, values
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert values["PASSWORD_RESET_TIMEOUT"] == 3600


def test_production_sends_by_smtp_as_the_environment_says():
    code, values = settings_under(
        DJANGO_ENV="production", DJANGO_SECRET_KEY="test-only", EMAIL_HOST="smtp.example.com", EMAIL_PORT="2525",
        EMAIL_HOST_USER="certify", EMAIL_HOST_PASSWORD="secret", EMAIL_USE_TLS="true",
        DEFAULT_FROM_EMAIL="Certify <noreply@example.com>", DJANGO_PASSWORD_RESET_TIMEOUT_MINUTES="30",
    )

    assert code == 0, values
    assert values == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "smtp.example.com",
        "EMAIL_PORT": 2525, "EMAIL_HOST_USER": "certify", "EMAIL_HOST_PASSWORD": "secret", "EMAIL_USE_TLS": True,
        "DEFAULT_FROM_EMAIL": "Certify <noreply@example.com>", "PASSWORD_RESET_TIMEOUT": 1800,
    }


@pytest.mark.parametrize("name, value", [("EMAIL_PORT", "smtp"), ("EMAIL_USE_TLS", "maybe")])
def test_a_malformed_email_setting_stops_the_start(name, value):
    code, stderr = settings_under(**{name: value})

    assert code != 0 and name in stderr


def test_sign_up_offers_the_time_zones_grouped_by_region_and_keeps_the_one_chosen(client, db):
    page = client.get(reverse("signup")).content.decode()
    assert '<optgroup label="Europe">' in page and '<option value="Europe/Paris">Paris</option>' in page
    assert '<option value="America/Argentina/Buenos_Aires">Argentina / Buenos Aires</option>' in page
    assert 'data-browser-zone="UTC"' in page  # app.js starts it on the browser's zone

    client.post(reverse("signup"), {"username": "paz", "time_zone": "America/Argentina/Buenos_Aires",
                                     "password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert User.objects.get(username="paz").time_zone == "America/Argentina/Buenos_Aires"


def test_sign_up_without_a_zone_is_in_utc_and_an_unknown_one_is_refused(client, db):
    sign_up(client, "una")
    client.logout()
    refused = client.post(reverse("signup"), {"username": "otto", "time_zone": "Mars/Olympus",
                                              "password1": NEW_PASSWORD, "password2": NEW_PASSWORD})

    assert User.objects.get(username="una").time_zone == "UTC"
    assert refused.status_code == 200 and not User.objects.filter(username="otto").exists()
    assert "Select a valid choice" in refused.content.decode()
    assert 'data-browser-zone' not in refused.content.decode()  # the choice shown again is left alone


def test_sign_up_names_the_email_optional(client, db):
    page = client.get(reverse("signup")).content.decode()
    assert ">Email:</label>" in page or ">Email</label>" in page
    assert "Optional. Only used for a link if you forget your password" in page
