"""A brand-new learner finds the seed quiz at the top of the home and starts it in one click; the
Library menu entry leads to a search that filters as one types; neither page scrolls sideways
on a 320 px screen. In Chromium."""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from quiz.models import Attempt, QuestionSet
from tests.test_browser_quiz import SEED, sign_up

pytestmark = pytest.mark.browser


def fits_the_screen(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_newcomer_starts_the_seed_quiz_in_one_click_from_the_top_of_the_home(page):
    call_command("import_questions", str(SEED), verbosity=0)
    seed_set = QuestionSet.objects.get()
    sign_up(page, "newcomer")

    start = page.get_by_test_id("study-now")
    expect(start).to_have_text(f"Start: {seed_set.title}")
    box = start.bounding_box()
    assert box["y"] + box["height"] <= page.viewport_size["height"], "visible without scrolling"
    start.click()

    expect(page.locator(".progress-label")).to_have_text("Question 1 of 7")
    attempt = Attempt.objects.get(user__username="newcomer")
    assert attempt.question_set == seed_set and not attempt.is_finished


def test_the_library_menu_entry_leads_to_a_search_that_filters_as_one_types(page):
    call_command("import_questions", str(SEED), verbosity=0)
    seed_set = QuestionSet.objects.get()
    sign_up(page, "searcher")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Library", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Library")
    expect(page.get_by_role("heading", name=seed_set.title)).to_be_visible()
    expect(page.get_by_role("heading", name="Free NCA-AIIO flashcards")).to_be_visible()
    page.wait_for_load_state("load")  # htmx is loaded
    page.evaluate("window.stillTheSamePage = true")

    page.get_by_label("Search by name or topic").fill("flashcards")

    expect(page.get_by_test_id("no-sets-found")).to_be_visible()
    expect(page.get_by_role("heading", name="Free NCA-AIIO flashcards")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/browse/\?q=flashcards$"))
    assert page.evaluate("window.stillTheSamePage"), "HTMX swapped the results, no full page load"

    page.get_by_role("link", name="Clear the search").click()
    expect(page.get_by_role("heading", name=seed_set.title)).to_be_visible()


def test_the_home_and_the_library_fit_a_320_px_screen(page):
    call_command("import_questions", str(SEED), verbosity=0)
    page.set_viewport_size({"width": 320, "height": 640})
    sign_up(page, "phone")
    assert fits_the_screen(page), "home"
    start = page.get_by_test_id("study-now")
    box = start.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 320

    page.goto("/browse/?q=NCA")
    expect(page.get_by_role("heading", level=1)).to_have_text("Library")
    assert fits_the_screen(page), "library"
