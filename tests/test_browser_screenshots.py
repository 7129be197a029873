"""The README's screenshots, taken in the real browser on the seed content: the home page, a quiz
question, a flashcard, and the dashboard's charts for a learner with a year of study.

Every run walks through the pages and checks they render; only `make screenshots`
(SCREENSHOTS=1) writes the PNGs to docs/screenshots/, 800 px wide and under 150 KB each.
tests/test_browser_charts.py checks what the charts look like; this one only takes their picture.
"""

import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser import sign_in
from tests.factories import PASSWORD, make_deck, make_user
from tests.test_browser_charts import study_over_a_year
from tests.test_browser_quiz import SEED

pytestmark = pytest.mark.browser

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
MAX_BYTES = 150_000


def shoot(page, name):
    """Write docs/screenshots/<name>.png when asked (SCREENSHOTS=1): the visible 800 px window."""
    if os.environ.get("SCREENSHOTS") != "1":
        return
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / f"{name}.png"
    page.mouse.move(0, 0)  # no hover effect in the picture
    page.screenshot(path=str(path), animations="disabled", caret="hide")
    assert path.stat().st_size < MAX_BYTES, f"{path.name} is {path.stat().st_size} bytes: crop the page or the content"


def test_the_readme_screenshots(page):
    call_command("import_questions", str(SEED), verbosity=0)
    make_user("sam", first_name="Sam")
    # For the dashboard's charts, a learner with a year of back-dated reviews of a deck of their
    # own (the seed's has too few cards for a busy day), written before the browser starts: SQLite's
    # in-memory test database locks a table the live server is using at the same moment.
    lee = make_user("lee")
    study_over_a_year(lee, list(make_deck("History", cards=8, owner=lee).cards.all()))
    page.set_viewport_size({"width": 800, "height": 700})

    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="Log in")).to_be_visible()

    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    # A newcomer's home: what to do now first, then the library.
    expect(page.get_by_role("heading", name="What to do now")).to_be_visible()
    shoot(page, "home")

    # A quiz question, a choice picked, and the feedback after one is answered.
    page.get_by_role("button", name="Start quiz").first.click()
    expect(page.locator(".progress-label")).to_have_text(re.compile(r"Question 1 of \d+"))
    page.locator(".choice").nth(1).click()
    shoot(page, "quiz-question")
    for _ in range(3):
        page.get_by_role("button", name="Submit answer").click()
        expect(page.locator(".verdict")).to_be_visible()
        page.get_by_role("link", name=re.compile("Next question|See results")).click()
        page.locator(".choice").first.click()

    # A flashcard, before it is turned over (its back is a long paragraph), then rated.
    page.goto("/")
    page.get_by_role("link", name="Open deck").first.click()
    page.get_by_role("link", name="Study", exact=True).click()
    page.wait_for_load_state("load")
    expect(page.locator(".face-front .card-text")).to_be_visible()
    shoot(page, "flashcard")
    page.keyboard.press("Space")
    expect(page.locator(".face-back")).to_be_visible()
    page.get_by_role("button", name=re.compile(r"^Good")).click()

    # The dashboard's charts, as a learner with a year of study sees them.
    page.context.clear_cookies()
    sign_in(page, "lee")
    page.set_viewport_size({"width": 800, "height": 1040})  # the three charts, one above the other
    page.goto("/")
    charts = page.get_by_role("heading", name="Over time")
    charts.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, document.getElementById('charts-heading').getBoundingClientRect().top - 8)")
    expect(charts).to_be_in_viewport()
    expect(page.get_by_test_id("heatmap")).to_be_in_viewport(ratio=1)
    shoot(page, "dashboard")
