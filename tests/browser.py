"""Shared set-up for the Playwright tests: Debian's Chromium, one browser per session.

Playwright cannot download its own browsers here, so the tests drive /usr/bin/chromium
(or $CHROMIUM). Without it they skip on a developer's machine, but with CI=true they
fail: a browser test that did not run is not a passing one.
"""

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# Chromium's background services would try the network, which is closed here.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_or_skip():
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return CHROMIUM
    message = f"Chromium not found at {CHROMIUM}: apt-get install chromium (or set CHROMIUM=/path)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " -- CI must run the browser tests", pytrace=False)
    pytest.skip(message)  # only off CI: under CI=true the line above fails the run instead


def sign_in(page, username):
    """Sign in as an existing user (the factories' password) through the login form."""
    from tests.factories import PASSWORD

    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def log_in(page, username):
    """Make a learner and sign in as them; the dashboard follows."""
    from playwright.sync_api import expect

    from tests.factories import make_user

    make_user(username)
    sign_in(page, username)
    expect(page.get_by_role("heading", level=1)).to_contain_text("Study for your certification")
