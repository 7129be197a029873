"""The production posture: failed logins limited per account and per address, sign-up and
password reset rate-limited, security headers on every page, private pages kept out of shared
caches, spreadsheet-safe CSV cells, look-alike usernames refused, structured security logs,
and `check --deploy` clean."""

import json
import logging
import os
import subprocess
import sys

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe

from quiz.lib.csv_export import csv_chunks, spreadsheet_safe
from quiz.models import User
from tests.factories import PASSWORD, make_user

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def fresh_limits(db):
    cache.clear()  # rate-limit counters live in the shared cache
    yield
    cache.clear()


def log_in(client, username, password, address="10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


# --- Failed logins -----------------------------------------------------------------------------

def test_five_wrong_passwords_lock_the_account_even_for_the_right_one(db):
    make_user("alice")
    client = Client()
    for _ in range(4):
        assert log_in(client, "alice", "wrong").status_code == 200  # the form again, with its error
    assert log_in(client, "alice", "wrong").status_code == 429  # the fifth locks

    response = log_in(client, "alice", PASSWORD)

    assert response.status_code == 429 and "Too many attempts" in response.content.decode()
    assert "Try again in 15 min" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_lock_holds_from_another_address(db):
    make_user("alice")
    for attempt in range(5):
        log_in(Client(), "alice", "wrong", address=f"10.0.0.{attempt}")

    assert log_in(Client(), "alice", PASSWORD, address="192.0.2.7").status_code == 429


def test_a_classmates_typos_do_not_lock_out_others_on_the_same_network(db):
    make_user("alice")
    make_user("teacher")
    for _ in range(5):
        log_in(Client(), "alice", "wrong", address="198.51.100.9")  # alice is locked out...

    assert log_in(Client(), "teacher", PASSWORD, address="198.51.100.9").status_code == 302  # ...nobody else


def test_one_address_guessing_many_accounts_is_held_back(db, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 6  # 50 by default; fewer here to keep the test short
    for name in ("a1", "a2", "a3", "a4", "a5", "a6", "a7"):
        make_user(name)
    for name in ("a1", "a2", "a3", "a4", "a5", "a6"):
        assert log_in(Client(), name, "wrong", address="198.51.100.9").status_code == 200

    response = log_in(Client(), "a7", PASSWORD, address="198.51.100.9")

    assert response.status_code == 429 and "Logging in from this network" in response.content.decode()
    assert log_in(Client(), "a7", PASSWORD, address="198.51.100.10").status_code == 302  # another address


def refused_by(response):
    """Which rule answered a login: None (the form again, or signed in), "account" or "address"."""
    page = response.content.decode()
    if response.status_code != 429:
        return None
    return "address" if "Logging in from this network" in page else "account" if "Too many attempts" in page else "?"


def test_failures_spread_over_eight_usernames_meet_each_rule_exactly_when_documented(db):
    """The testers' probe, with the default limits: 60 wrong passwords from one address, taking
    eight usernames in turn. Each username locks on its 5th failure (the 33rd to 40th request),
    and its later tries are refused by that lock; every failure counts for the address, so the
    51st request is the first the address limit refuses, whichever username it names."""
    names = [f"user{n}" for n in range(8)]
    for name in names:
        make_user(name)

    answers = [refused_by(log_in(Client(), names[n % 8], "wrong", address="203.0.113.40")) for n in range(60)]

    assert answers[:32] == [None] * 32
    assert answers[32:50] == ["account"] * 18
    assert answers[50:] == ["address"] * 10


def test_the_address_limit_is_a_sliding_window_of_fifteen_minutes(db):
    from axes.models import AccessFailureLog

    for n in range(50):
        log_in(Client(), f"nobody{n}", "wrong", address="203.0.113.41")
    assert refused_by(log_in(Client(), "nobody-else", "wrong", address="203.0.113.41")) == "address"

    # Move the failures back in time: those more than 15 minutes old no longer count.
    oldest = AccessFailureLog.objects.filter(ip_address="203.0.113.41").order_by("attempt_time", "pk")
    AccessFailureLog.objects.filter(pk__in=list(oldest.values_list("pk", flat=True)[:1])).update(
        attempt_time=timezone.now() - timedelta(minutes=15, seconds=1)
    )
    assert refused_by(log_in(Client(), "nobody-else", "wrong", address="203.0.113.41")) is None  # 49 left, this is the 50th
    assert refused_by(log_in(Client(), "nobody-else", "wrong", address="203.0.113.41")) == "address"


@pytest.mark.parametrize("length", [150, 151, 255, 256, 5000])
def test_a_username_of_any_length_is_a_plain_failed_login(db, length):
    username = "x" * length
    for _ in range(4):
        response = log_in(Client(), username, "wrong", address="203.0.113.42")
        assert response.status_code == 200 and "Please enter a correct username and password" in response.content.decode()
    assert refused_by(log_in(Client(), username, "wrong", address="203.0.113.42")) == "account"  # the 5th locks it


def test_a_right_password_before_the_limit_logs_in_and_resets_the_count(db):
    make_user("alice")
    client = Client()
    for _ in range(4):
        log_in(client, "alice", "wrong")

    assert log_in(client, "alice", PASSWORD).status_code == 302
    for _ in range(4):
        log_in(Client(), "alice", "wrong")
    assert log_in(Client(), "alice", PASSWORD).status_code == 302


# --- Sign-up and password reset --------------------------------------------------------------------

def test_sign_up_is_rate_limited_per_address(db, settings):
    settings.RATELIMIT_SIGNUP = "3/h"
    client = Client()
    for n in range(3):
        data = {"username": f"new{n}", "password1": PASSWORD, "password2": PASSWORD}
        assert client.post(reverse("signup"), data, REMOTE_ADDR="203.0.113.5").status_code == 302
        client.logout()

    data = {"username": "new9", "password1": PASSWORD, "password2": PASSWORD}
    response = client.post(reverse("signup"), data, REMOTE_ADDR="203.0.113.5")

    assert response.status_code == 429
    assert not User.objects.filter(username="new9").exists()


def test_password_reset_is_rate_limited_per_address(db, settings, mailoutbox):
    settings.RATELIMIT_PASSWORD_RESET = "2/h"
    make_user("alice", email="alice@example.com", email_verified_at=timezone.now())
    client = Client()
    for _ in range(2):
        assert client.post(reverse("password_reset"), {"email": "alice@example.com"}).status_code == 302

    assert client.post(reverse("password_reset"), {"email": "alice@example.com"}).status_code == 429
    assert len(mailoutbox) == 2


# --- Headers and caching -------------------------------------------------------------------------

def test_every_page_sends_a_strict_content_security_policy_and_a_permissions_policy(client, db):
    response = client.get(reverse("login"))

    policy = response["Content-Security-Policy"]
    script_src = next(part for part in policy.split(";") if part.strip().startswith("script-src"))
    assert "'self'" in script_src and "unsafe-inline" not in script_src and "unsafe-eval" not in script_src
    assert "frame-ancestors 'none'" in policy
    assert "camera=()" in response["Permissions-Policy"]


def test_pages_and_downloads_for_a_signed_in_user_are_private_and_not_stored(learner_client):
    for url in (reverse("home"), reverse("attempt_list"), reverse("download_history")):
        response = learner_client.get(url)
        cache_control = {part.strip() for part in response["Cache-Control"].split(",")}
        assert {"private", "no-store"} <= cache_control, url


def test_a_visitors_page_is_not_marked_private(client, db):
    assert "private" not in client.get(reverse("home")).get("Cache-Control", "")


# --- Spreadsheet-safe CSV cells and look-alike names ---------------------------------------------------

@pytest.mark.parametrize("cell", [
    "=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", "\n=1", " =1+1", "  @x", '"=1', "'=1", "\u00a0=1",
    "\uff1d1+1", "\uff0b1",  # full-width ＝ and ＋
])
def test_cells_a_spreadsheet_would_run_as_a_formula_are_neutralised(cell):
    assert spreadsheet_safe(cell) == "'" + cell


def test_a_formula_in_a_string_subclass_is_neutralised_in_a_download():
    assert "".join(csv_chunks([["cell"], [mark_safe("=HYPERLINK(1)")]])).splitlines()[1] == "'=HYPERLINK(1)"


@pytest.mark.parametrize("cell", ["What is 1+1?", "NVLink = fast", "", 42])
def test_ordinary_cells_are_left_alone(cell):
    assert spreadsheet_safe(cell) == cell


@pytest.mark.parametrize("username", ["l\u0435arnA", "\u0430dmin", "t\u0435acher"])  # Cyrillic е / а
def test_a_username_mixing_look_alike_scripts_is_refused(client, db, username):
    response = client.post(reverse("signup"), {"username": username, "password1": PASSWORD, "password2": PASSWORD})

    assert response.status_code == 200 and "different alphabets" in response.content.decode()
    assert not User.objects.filter(username=username).exists()


@pytest.mark.parametrize("username", ["learnA", "Zoë", "\u0430\u043d\u043d\u0430"])  # Latin, accented Latin, Cyrillic alone
def test_names_in_one_alphabet_are_welcome(client, db, username):
    response = client.post(reverse("signup"), {"username": username, "password1": PASSWORD, "password2": PASSWORD})

    assert response.status_code == 302 and User.objects.filter(username=username).exists()


# --- Structured security log -------------------------------------------------------------------------

def test_a_failed_login_is_logged_as_a_structured_event(db, caplog):
    make_user("alice")
    with caplog.at_level(logging.INFO, logger="quiz.security"):
        log_in(Client(), "alice", "wrong", address="10.9.8.7")

    (record,) = [r for r in caplog.records if getattr(r, "event", None) == "login_failed"]
    assert (record.username, record.address) == ("alice", "10.9.8.7")
    assert "wrong" not in record.getMessage()


def test_the_json_formatter_writes_one_object_a_line():
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)
    formatter = logging.getLogger("django.request").handlers[0].formatter
    record = logging.LogRecord("quiz.security", logging.INFO, __file__, 1, "login failed", (), None)
    record.event = "login_failed"

    line = json.loads(formatter.format(record))

    assert (line["level"], line["logger"], line["message"], line["event"]) == ("INFO", "quiz.security", "login failed", "login_failed")


# --- Production settings ---------------------------------------------------------------------------

def manage(*args, **env):
    environment = {**os.environ, "DJANGO_ENV": "production", "DJANGO_SECRET_KEY": "k3y-for-the-deploy-check-" + "abcdefghijklmnopqrstuvwxyz0123456789",
                   "DJANGO_ALLOWED_HOSTS": "study.example", **env}
    environment.pop("DJANGO_DEBUG", None)
    # Set in this process by the browser tests for Playwright's event loop (tests/conftest.py),
    # whichever ran first; a production server never has it.
    environment.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    environment.update({key: value for key, value in env.items()})
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_has_nothing_to_say_about_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_refuses_to_start_with_debug_on():
    result = manage("check", DJANGO_DEBUG="1")

    assert result.returncode != 0 and "DJANGO_DEBUG must be off" in result.stderr
