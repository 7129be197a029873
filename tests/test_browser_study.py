"""Studying a deck with the keyboard only, undoing a rating, a session as Anki runs one on a
phone, and a Myth-or-fact drill, in Chromium."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.db.models import Q
from playwright.sync_api import expect

from quiz.models import Card, MemoryState, ReviewLog
from tests.browser import log_in
from tests.factories import make_deck
from tests.test_browser_quiz import SEED

pytestmark = pytest.mark.browser


def shown_card(page):
    return Card.objects.get(pk=page.locator('#study-item input[name="item"]').get_attribute("value"))


def test_studying_a_deck_with_the_keyboard_only(page):
    call_command("import_questions", str(SEED), verbosity=0)
    log_in(page, "keys")
    page.get_by_role("link", name="Open deck").click()
    page.get_by_role("link", name="Study", exact=True).click()
    page.wait_for_load_state("load")  # before this, keys fall back to plain form posts
    page.evaluate("window.stillTheSamePage = true")

    first = shown_card(page)
    expect(page.locator(".face-back")).to_be_hidden()
    expect(page.locator(".rating-form")).to_be_hidden()
    page.keyboard.press("Space")  # flip: no request, the back was in the page
    expect(page.locator(".face-back")).to_be_visible()
    expect(page.locator(".face-back")).to_contain_text(first.back)
    expect(page.locator(".misconception")).to_contain_text("Common mistake: " + first.misconception)
    expect(page.get_by_role("button", name=re.compile(r"^Good 10m"))).to_be_visible()

    page.keyboard.press("3")  # Good: saved, and the next card swaps in
    expect(page.locator(".face-front .card-text")).not_to_have_text(first.front)
    second = shown_card(page)
    assert ReviewLog.objects.get().rating == 3

    page.keyboard.press("Enter")  # Enter flips too
    page.keyboard.press("1")  # Again
    expect(page.locator(".face-front .card-text")).not_to_have_text(second.front)
    assert ReviewLog.objects.count() == 2

    page.keyboard.press("Control+z")  # undo the Again: the second card is back, as it was
    expect(page.locator(".face-front .card-text")).to_have_text(second.front)
    assert ReviewLog.objects.count() == 1
    assert not MemoryState.objects.filter(card=second).exists()

    page.keyboard.press("Space")
    page.keyboard.press("4")  # Easy
    expect(page.locator(".face-front .card-text")).not_to_have_text(second.front)
    assert page.evaluate("window.stillTheSamePage"), "ratings swapped fragments without reloading"
    assert ReviewLog.objects.filter(memory__card=second).get().rating == 4


def test_the_flip_animation_respects_reduced_motion(browser, live_server, transactional_db):
    call_command("import_questions", str(SEED), verbosity=0)
    animations = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(base_url=live_server.url, reduced_motion=motion)
        page = context.new_page()
        log_in(page, f"motion-{motion}")
        page.goto(f"/decks/{Card.objects.first().deck_id}/study/")
        page.keyboard.press("Space")
        animations[motion] = page.evaluate("getComputedStyle(document.querySelector('.face-back')).animationName")
        context.close()

    assert animations == {"no-preference": "flip-in", "reduce": "none"}


def test_a_myth_or_fact_drill(page):
    call_command("import_questions", str(SEED), verbosity=0)
    log_in(page, "driller")
    page.get_by_role("link", name="Myth or fact?").first.click()

    for _ in range(3):
        statement = page.locator(".statement").inner_text()
        card = Card.objects.get(Q(misconception=statement) | Q(back=statement))
        is_myth = statement == card.misconception
        assert is_myth or statement == card.back
        page.keyboard.press("m" if is_myth else "f")
        expect(page.locator(".verdict")).to_have_text("Correct!")
        expect(page.locator("#study-item")).to_contain_text(card.correction if is_myth else "This is the right answer")
        page.keyboard.press("n")
        expect(page.locator(".verdict")).to_have_count(0)

    answers = ReviewLog.objects.filter(source="drill")
    assert answers.count() == 3 and set(answers.values_list("rating", flat=True)) == {3}


def counters(page):
    return {name: page.get_by_test_id(f"left-{name}").inner_text() for name in ("new", "learning", "review")}


def counter_contrast_problems(page):
    """axe-core's colour contrast check of the session's counters: each number is coloured on a
    tinted pill, the kind of pair that passes on the page's background and fails on its own. A
    one-digit count is too short for axe to rule on ("incomplete"), yet it measures the pair, and
    the pair is what a two-digit count shows: both are held to the ratio axe expects."""
    response = Axe().run(page, context=".session-counts", options={"runOnly": ["color-contrast"]}).response
    measured = [node["any"][0]["data"] for kind in ("violations", "incomplete") for rule in response[kind]
                for node in rule["nodes"] if node["any"] and isinstance(node["any"][0]["data"], dict)]
    return [pair for pair in measured
            if pair.get("contrastRatio") and pair["contrastRatio"] < float(pair["expectedContrastRatio"].split(":")[0])]


def expect_ratings_in_one_row(page, width):
    boxes = [button.bounding_box() for button in page.locator(".rating-form .rating").all()]
    assert len(boxes) == 4
    assert len({round(box["y"]) for box in boxes}) == 1, boxes  # side by side, not wrapped
    assert all(box["x"] >= 0 and box["x"] + box["width"] <= width for box in boxes), boxes
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_session_on_a_phone_brings_a_card_back_and_ends_with_a_summary(page):
    deck = make_deck("Phone deck", cards=2)
    log_in(page, "phone")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/decks/{deck.pk}/study/")
    page.wait_for_load_state("load")
    page.evaluate("window.stillTheSamePage = true")
    first = shown_card(page)
    assert counters(page) == {"new": "2", "learning": "0", "review": "0"}
    assert not counter_contrast_problems(page)
    expect(page).to_have_title("Phone deck · Study · 2 left · Certify")

    page.get_by_text("Show answer").click()
    expect(page.locator(".correction")).to_have_text("Why it is wrong: " + first.correction)
    expect_ratings_in_one_row(page, 390)
    page.get_by_role("button", name=re.compile("^Again")).click()  # Again: a learning step in a minute
    expect(page.get_by_test_id("left-new")).to_have_text("1")
    assert counters(page) == {"new": "1", "learning": "0", "review": "0"}  # the step is not due yet
    expect(page).to_have_title("Phone deck · Study · 1 left · Certify")  # htmx took the fragment's <title>
    second = shown_card(page)
    assert second != first

    page.get_by_text("Show answer").click()
    page.get_by_role("button", name=re.compile("^Easy")).click()
    # Nothing else is left: the card rated Again comes back early instead of "next review in 1 min".
    expect(page.locator(".face-front .card-text")).to_have_text(first.front)
    assert counters(page) == {"new": "0", "learning": "1", "review": "0"}
    expect(page).to_have_title("Phone deck · Study · 1 left · Certify")

    page.get_by_text("Show answer").click()
    page.get_by_role("button", name=re.compile("^Good")).click()  # its last learning step
    expect(page.locator(".face-front .card-text")).to_have_text(first.front)
    page.get_by_text("Show answer").click()
    page.get_by_role("button", name=re.compile("^Good")).click()

    expect(page.get_by_role("heading", name="All caught up")).to_be_visible()
    expect(page.get_by_test_id("summary-reviewed")).to_have_text("4")
    expect(page.get_by_test_id("summary-right")).to_have_text("3 (75%)")
    expect(page.get_by_test_id("summary-time")).to_be_visible()
    expect(page).to_have_title("Phone deck · Study · Done · Certify")
    assert page.evaluate("window.stillTheSamePage"), "every rating swapped a fragment"
    assert ReviewLog.objects.filter(user__username="phone").count() == 4

    page.set_viewport_size({"width": 320, "height": 700})
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    page.get_by_role("button", name="Study ahead").click()  # the cards due soonest, early
    expect(page.locator(".face-front")).to_be_visible()
    page.get_by_text("Show answer").click()
    expect_ratings_in_one_row(page, 320)
