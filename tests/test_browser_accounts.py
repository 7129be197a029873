"""A learner who forgot their password gets a new one by email, in a real Chromium on a 320 px
phone screen: sign up with an email, log out, "Forgot password?", the link from the email (the
live server runs in this process, so Django's in-memory outbox holds it), a new password, log in."""

import re

import pytest
from playwright.sync_api import expect

from quiz.models import User
from tests.browser import ARTIFACTS
from tests.factories import PASSWORD as FACTORY_PASSWORD
from tests.factories import make_user

pytestmark = pytest.mark.browser

PASSWORD = "a-long-unusual-passphrase-42"
NEW_PASSWORD = "another-long-passphrase-77"
RESET_LINK = re.compile(r"https?://\S+/accounts/reset/\S+/")
VERIFY_LINK = re.compile(r"https?://[^/\s]+(/accounts/verify-email/\S+/)")


def assert_fits_the_screen(page):
    # A page just navigated to may not have its document yet (documentElement is null until it does).
    page.wait_for_load_state("domcontentloaded")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 320, f"{page.url} scrolls sideways: {width}px wide"


def heading(page):
    return page.get_by_role("heading", level=1)


def test_a_learner_resets_a_forgotten_password_by_email_on_a_phone(page, mailoutbox):
    page.set_viewport_size({"width": 320, "height": 700})

    page.goto("/accounts/signup/")
    assert_fits_the_screen(page)
    page.get_by_label("Username").fill("maya")
    page.get_by_label("Email").fill("maya@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_text("Welcome, maya")).to_be_visible()
    # The address is confirmed by the link sent to it: only then may a reset go there.
    [verification] = mailoutbox
    page.goto(VERIFY_LINK.search(verification.body).group(1))
    expect(heading(page)).to_have_text("Confirm your email address")
    page.get_by_role("button", name="Yes, confirm my address").click()
    expect(heading(page)).to_have_text("Your email address is confirmed")
    assert_fits_the_screen(page)
    page.get_by_role("navigation").get_by_text("Menu", exact=True).click()  # a phone's menu is folded
    page.get_by_role("button", name="Log out").click()

    page.get_by_role("navigation").get_by_role("link", name="Log in").click()
    assert_fits_the_screen(page)
    page.get_by_role("link", name="Forgot password?").click()
    expect(heading(page)).to_have_text("Reset your password")
    assert_fits_the_screen(page)
    page.get_by_label("Email").fill("Maya@Example.com")
    page.get_by_role("button", name="Send the link").click()
    expect(heading(page)).to_have_text("Check your email")
    assert_fits_the_screen(page)

    email = mailoutbox[-1]
    assert email.to == ["maya@example.com"] and len(mailoutbox) == 2
    link = RESET_LINK.search(email.body).group(0)
    page.goto(link)
    expect(heading(page)).to_have_text("Choose a new password")
    assert_fits_the_screen(page)
    # A mismatch first: the error shows and the page still fits.
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill("not-the-same-one-42")
    page.get_by_role("button", name="Set my new password").click()
    expect(page.get_by_text("The two password fields didn’t match.")).to_be_visible()
    assert_fits_the_screen(page)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set my new password").click()
    expect(heading(page)).to_have_text("Your password is changed")
    assert_fits_the_screen(page)

    page.get_by_role("main").get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("maya")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".nav-user")).to_have_text("maya")

    # The link worked once: now it is the app's own "does not work" page, offering a new one.
    page.goto(link)
    expect(heading(page)).to_have_text("This link does not work")
    expect(page.get_by_role("link", name="Ask for a new link")).to_be_visible()
    assert_fits_the_screen(page)


def test_a_learner_adds_an_email_and_changes_their_password_in_settings_on_a_phone(page):
    make_user("noor")
    page.set_viewport_size({"width": 320, "height": 700})
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("noor")
    page.get_by_label("Password").fill(FACTORY_PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.get_by_role("navigation").get_by_text("Menu", exact=True).click()
    page.get_by_role("navigation").get_by_role("link", name="Settings").click()
    expect(page).to_have_url(re.compile(r"/settings/$"))
    assert_fits_the_screen(page)
    page.get_by_role("link", name="Your account").click()
    expect(heading(page)).to_have_text("Your account")
    assert_fits_the_screen(page)
    # A typed email field: the browser itself holds back a malformed address (the server checks too).
    page.get_by_label("Email", exact=True).fill("not-an-address")
    assert page.get_by_label("Email", exact=True).evaluate("input => input.type === 'email' && !input.validity.valid")
    page.get_by_label("Email", exact=True).fill("noor@example.com")
    page.get_by_label("Your password").fill(FACTORY_PASSWORD)
    page.get_by_role("button", name="Add the address").click()
    expect(page.get_by_text("We sent a link to noor@example.com")).to_be_visible()
    expect(page.get_by_test_id("email-status")).to_contain_text("not confirmed yet")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "account-320.png"), full_page=True)
    assert User.objects.get(username="noor").email == "noor@example.com"

    page.get_by_role("link", name="Change your password").click()
    expect(heading(page)).to_have_text("Change your password")
    assert_fits_the_screen(page)
    page.get_by_label("Old password").fill(FACTORY_PASSWORD)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change my password").click()
    expect(heading(page)).to_have_text("Your password is changed")
    assert_fits_the_screen(page)
    assert User.objects.get(username="noor").check_password(NEW_PASSWORD)


def test_sign_up_starts_on_the_browsers_time_zone(browser, live_server):
    context = browser.new_context(base_url=live_server.url, timezone_id="Europe/Paris")
    page = context.new_page()
    try:
        page.goto("/accounts/signup/")
        expect(page.get_by_label("Time zone")).to_have_value("Europe/Paris")
        page.get_by_label("Username").fill("kavya")
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password confirmation").fill(PASSWORD)
        page.get_by_role("button", name="Sign up").click()
        expect(page.get_by_text("Welcome, kavya")).to_be_visible()
        assert User.objects.get(username="kavya").time_zone == "Europe/Paris"
    finally:
        context.close()
