"""Signed-in devices in Settings: each session with its browser, address and last time seen; sign
out one or all others; a password change signs out the others, a reset signs out all."""

import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from qsessions.models import Session

from quiz.accounts import devices
from tests.factories import PASSWORD, make_user

PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
LAPTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
NEW_PASSWORD = "a-long-unusual-passphrase-42"


@pytest.fixture(autouse=True)
def fresh_limits(db):
    cache.clear()
    yield
    cache.clear()


def device(user_agent, address, username="maya"):
    """A browser that logged in through the form, as a person's does."""
    client = Client(HTTP_USER_AGENT=user_agent, REMOTE_ADDR=address)
    assert client.post(reverse("login"), {"username": username, "password": PASSWORD}).status_code == 302
    client.get(reverse("home"))
    return client


def signed_in(client):
    return client.get(reverse("account_settings")).status_code == 200


def test_the_account_page_lists_each_device_with_browser_address_and_last_seen(db):
    make_user("maya")
    phone, laptop = device(PHONE, "203.0.113.7"), device(LAPTOP, "198.51.100.4")

    page = laptop.get(reverse("account_settings")).content.decode()

    assert "iPhone" in page and "Mobile Safari" in page and "203.0.113.7" in page
    assert "Chrome" in page and "198.51.100.4" in page and "(this device)" in page
    # Pages name a device by a keyed hash, never by its session key.
    for key in Session.objects.values_list("session_key", flat=True):
        assert key not in page
    assert signed_in(phone)


def test_signing_out_one_other_device(db):
    make_user("maya")
    phone, laptop = device(PHONE, "203.0.113.7"), device(LAPTOP, "198.51.100.4")
    page = laptop.get(reverse("account_settings")).content.decode()
    [sign_out_url] = re.findall(r'action="(/settings/devices/[0-9a-f]+/sign-out/)"', page)

    response = laptop.post(sign_out_url, follow=True)

    assert "That device is signed out." in response.content.decode()
    assert not signed_in(phone) and signed_in(laptop)


def test_a_device_of_someone_else_cannot_be_signed_out(db):
    make_user("maya"), make_user("omar")
    maya = device(PHONE, "203.0.113.7")
    omar = device(LAPTOP, "198.51.100.4", username="omar")
    [maya_key] = Session.objects.filter(user__username="maya").values_list("session_key", flat=True)

    omar.post(reverse("sign_out_device", args=[devices.device_id(maya_key)]))

    assert signed_in(maya)


def test_signing_out_every_other_device(db):
    make_user("maya")
    others = [device(PHONE, f"203.0.113.{n}") for n in range(3)]
    laptop = device(LAPTOP, "198.51.100.4")

    response = laptop.post(reverse("sign_out_other_devices"), follow=True)

    assert "Signed out 3 other devices." in response.content.decode()
    assert signed_in(laptop) and not any(signed_in(other) for other in others)


def test_a_password_change_signs_out_the_other_devices(db):
    make_user("maya")
    phone, laptop = device(PHONE, "203.0.113.7"), device(LAPTOP, "198.51.100.4")

    response = laptop.post(reverse("password_change"), {
        "old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert response.status_code == 302
    assert signed_in(laptop) and not signed_in(phone)
    assert Session.objects.filter(user__username="maya").count() == 1


def test_a_password_reset_signs_out_every_device(db, mailoutbox):
    make_user("maya", email="maya@example.com", email_verified_at=timezone.now())
    phone = device(PHONE, "203.0.113.7")
    Client().post(reverse("password_reset"), {"email": "maya@example.com"})
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mailoutbox[0].body).group(1)
    browser = Client()
    form_url = browser.get(link).url

    browser.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert not signed_in(phone)
    assert not Session.objects.filter(user__username="maya").exists()


def test_last_seen_moves_at_most_every_few_minutes(db):
    make_user("maya")
    phone = device(PHONE, "203.0.113.7")
    session = Session.objects.get(user__username="maya")
    seen = session.updated_at

    phone.get(reverse("home"))
    assert Session.objects.get(pk=session.pk).updated_at == seen  # no write for a page right after

    # Minutes later the next page marks it seen.
    store = phone.session
    store[devices.SEEN_KEY] -= devices.SEEN_EVERY.total_seconds() + 1
    store.save()
    marked = Session.objects.get(pk=session.pk).updated_at
    phone.get(reverse("home"))
    assert Session.objects.get(pk=session.pk).updated_at > marked
