"""A newcomer signs up and takes the seed quiz in a real Chromium, by keyboard and mouse."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from quiz.models import Attempt, Question

pytestmark = pytest.mark.browser

SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed.json"
PASSWORD = "a-long-unusual-passphrase-42"


def sign_up(page, username):
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_text(f"Welcome, {username}")).to_be_visible()


def shown_choices(page):
    return page.locator("#question-card .choice-text").all_inner_texts()


def current_question(page):
    stem = page.locator("#question-card h2.stem").inner_text()
    return Question.objects.prefetch_related("choices").get(stem=stem)


def key_of(page, correct):
    """The 1-based key of the right (or a wrong) choice as shown on screen."""
    question = current_question(page)
    texts = [choice.text for choice in question.choices.all() if choice.is_correct == correct]
    return next(index for index, text in enumerate(shown_choices(page), start=1) if text in texts)


def expect_question(page, number):
    expect(page.locator(".progress-label")).to_have_text(f"Question {number} of 7")
    expect(page).to_have_url(re.compile(rf"/questions/{number}/$"))


def test_a_newcomer_takes_the_seed_quiz_with_keyboard_and_mouse(page):
    call_command("import_questions", str(SEED), verbosity=0)
    sign_up(page, "newcomer")

    page.get_by_role("button", name="Start quiz").first.click()
    expect_question(page, 1)
    page.wait_for_load_state("load")  # before this, keys fall back to plain form posts
    page.evaluate("window.stillTheSamePage = true")

    # Question 1 by keyboard: a number key picks, Enter submits, the feedback swaps in.
    page.keyboard.press(str(key_of(page, correct=True)))
    page.keyboard.press("Enter")
    expect(page.locator(".verdict")).to_have_text("Correct!")
    expect(page.locator(".explanation")).to_contain_text("ZeRO (from DeepSpeed)")
    assert page.evaluate("window.stillTheSamePage"), "HTMX swapped the fragment, no full page load"

    # N goes to the next question; question 2 by mouse, answered wrong on purpose.
    page.keyboard.press("n")
    expect_question(page, 2)
    page.locator("#question-card .choice").nth(key_of(page, correct=False) - 1).click()
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator(".verdict")).to_have_text("Not quite.")
    expect(page.locator(".is-correct .choice-text")).to_have_text("Tensor parallelism for inference")
    expect(page.locator(".is-chosen .tag")).to_have_text("Your answer")

    # Reload mid-quiz: the answered question keeps its feedback; the next one resumes.
    page.reload()
    expect(page.locator(".verdict")).to_have_text("Not quite.")
    page.get_by_role("link", name="Next question").click()
    expect_question(page, 3)
    page.reload()
    expect_question(page, 3)
    page.goto("/")
    page.get_by_role("link", name="Resume").click()
    expect_question(page, 3)

    for number in range(3, 8):
        expect_question(page, number)
        page.keyboard.press(str(key_of(page, correct=True)))
        page.keyboard.press("Enter")
        expect(page.locator(".verdict")).to_have_text("Correct!")
        page.keyboard.press("n")

    expect(page.get_by_role("heading", level=1)).to_contain_text("Results")
    expect(page.get_by_test_id("score")).to_contain_text("6 of 7")
    expect(page.locator(".result-item")).to_have_count(7)
    expect(page.locator(".result-item .explanation")).to_have_count(7)
    attempt = Attempt.objects.get(user__username="newcomer")
    assert (attempt.correct_count, attempt.is_finished) == (6, True)

    page.get_by_role("link", name="History", exact=True).click()
    expect(page.get_by_role("cell", name="6/7 (86%)")).to_be_visible()


def test_the_quiz_works_with_javascript_off(browser, live_server, transactional_db):
    call_command("import_questions", str(SEED), verbosity=0)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    sign_up(page, "nojs")

    page.get_by_role("button", name="Start quiz").first.click()
    expect_question(page, 1)
    page.locator("#question-card .choice").nth(key_of(page, correct=True) - 1).click()
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator(".verdict")).to_have_text("Correct!")
    page.get_by_role("link", name="Next question").click()
    expect_question(page, 2)
    context.close()


def test_the_question_page_is_usable_on_a_phone_in_dark_mode(browser, live_server, transactional_db):
    call_command("import_questions", str(SEED), verbosity=0)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 375, "height": 740}, color_scheme="dark", is_mobile=True
    )
    page = context.new_page()
    sign_up(page, "phone")
    page.get_by_role("button", name="Start quiz").first.click()

    no_horizontal_scroll = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert no_horizontal_scroll
    assert background == "rgb(18, 19, 23)"
    context.close()


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_deferred_quiz_saves_flags_goes_back_and_submits_after_asking(page):
    """Feedback at the end, as in Moodle: answer some, flag one, go back, open the summary,
    submit with confirmation, and land on results with the score and the next steps first."""
    call_command("import_questions", str(SEED), verbosity=0)
    sign_up(page, "deferred")
    page.locator("select[name=feedback]").first.select_option("deferred")
    page.get_by_role("button", name="Start quiz").first.click()
    expect_question(page, 1)
    page.wait_for_load_state("load")
    page.evaluate("window.stillTheSamePage = true")
    title = Attempt.objects.get(user__username="deferred").display_title

    # Question 1 wrong, question 2 right: each save moves on and says it was saved, no verdict.
    page.locator("#question-card .choice").nth(key_of(page, correct=False) - 1).click()
    page.get_by_role("button", name="Save and next").click()
    expect_question(page, 2)
    expect(page.get_by_test_id("saved-note")).to_have_text("Answer to question 1 saved.")
    expect(page.locator(".verdict")).to_have_count(0)
    # The tab's title follows the swapped question (htmx reads the fragment's <title>).
    assert page.evaluate("document.title") == f"Question 2 of 7 · {title} · Certify"
    page.keyboard.press(str(key_of(page, correct=True)))
    page.keyboard.press("Enter")
    expect_question(page, 3)
    assert page.evaluate("document.title") == f"Question 3 of 7 · {title} · Certify"

    # Flag question 3 (its own small request), then back to 2 with Previous: the pick is kept.
    page.get_by_test_id("flag").click()
    expect(page.get_by_test_id("flag")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("link", name="Previous").click()
    expect_question(page, 2)
    assert page.evaluate("document.title") == f"Question 2 of 7 · {title} · Certify"
    expect(page.get_by_test_id("answer-saved")).to_be_visible()
    expect(page.locator("#question-card input[name=choice]:checked")).to_have_count(1)
    assert page.evaluate("window.stillTheSamePage"), "HTMX swapped the questions, no full page load"

    # Change question 1 from wrong to right (Moodle lets you until the submit).
    page.get_by_role("link", name="Previous").click()
    expect_question(page, 1)
    page.locator("#question-card .choice").nth(key_of(page, correct=True) - 1).click()
    page.get_by_role("button", name="Save and next").click()
    expect_question(page, 2)

    # A phone-sized screen: the question page does not scroll sideways.
    page.set_viewport_size({"width": 320, "height": 700})
    assert no_sideways_scroll(page)

    # The summary: counts, each question linked, the flag shown, nothing about right or wrong.
    page.get_by_role("link", name="All questions and submit").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Summary")
    expect(page.get_by_test_id("answered-count")).to_have_text("2 answered")
    expect(page.get_by_test_id("unanswered-count")).to_have_text("5 unanswered")
    expect(page.get_by_test_id("flagged-count")).to_have_text("1 flagged")
    expect(page.get_by_test_id("summary-item")).to_have_count(7)
    expect(page.locator(".summary-item.is-flagged")).to_have_count(1)
    expect(page.locator(".verdict, .is-correct")).to_have_count(0)
    assert no_sideways_scroll(page)

    # Submit asks first, inline, saying how many are unanswered; then the results.
    page.get_by_role("link", name="Submit all and finish…").click()
    expect(page.get_by_test_id("submit-question")).to_contain_text("You have 5 unanswered questions")
    assert Attempt.objects.get(user__username="deferred").finished_at is None
    page.get_by_role("button", name="Submit all and finish").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("Results")
    expect(page.get_by_test_id("score")).to_contain_text("2 of 7")
    retake = page.get_by_role("button", name="Retake my mistakes").first
    expect(retake).to_be_visible()
    # Score first, and the next steps right under it, not after the whole review.
    score_top = page.get_by_test_id("score").bounding_box()["y"]
    assert score_top < retake.bounding_box()["y"] < page.locator(".result-item").first.bounding_box()["y"]
    assert retake.bounding_box()["y"] < 700
    assert no_sideways_scroll(page)
    attempt = Attempt.objects.get(user__username="deferred")
    assert (attempt.is_finished, attempt.correct_count) == (True, 2)


def test_a_deadline_days_away_counts_down_in_days_and_hours(page):
    # A timed attempt that closes at its assignment's due date: not thousands of minutes.
    call_command("import_questions", str(SEED), verbosity=0)
    sign_up(page, "planner")
    page.get_by_role("button", name="Start quiz").first.click()
    expect_question(page, 1)
    Attempt.objects.update(deadline=timezone.now() + timedelta(days=3))

    page.reload()

    expect(page.locator(".timer")).to_contain_text("Time is up on ")
    # Rounded up to the second, it says "3 days" for the first second after the reload.
    expect(page.locator(".timer-left")).to_have_text(re.compile(r"^ · 2 days 23 h left$"))


def test_a_countdown_reads_in_minutes_and_seconds_and_turns_red_only_near_the_end(page):
    call_command("import_questions", str(SEED), verbosity=0)
    sign_up(page, "timed")
    page.get_by_role("button", name="Start quiz").first.click()
    expect_question(page, 1)
    # Untimed, the time taken as the server wrote it, and as app.js goes on: never "0:02".
    expect(page.locator(".timer-elapsed")).to_have_text(re.compile(r"^\d{1,2} s$"))

    # A 60-minute attempt with 20 minutes left: units, no colon, not in its last stretch.
    now = timezone.now()
    Attempt.objects.update(started_at=now - timedelta(minutes=40), deadline=now + timedelta(minutes=20))
    page.reload()
    timer = page.locator(".timer")
    expect(page.locator(".timer-left")).to_have_text(re.compile(r"^ · (19 min \d{1,2} s|20 min) left$"))
    expect(timer).to_have_class("timer")
    calm = timer.evaluate("element => getComputedStyle(element).color")

    # Its last five minutes begin a few seconds after the reload: the page turns red as it ticks.
    now = timezone.now()
    deadline = now + timedelta(minutes=5, seconds=6)
    Attempt.objects.update(started_at=deadline - timedelta(minutes=60), deadline=deadline)
    page.reload()
    expect(timer).to_have_class("timer")
    expect(timer).to_have_class("timer is-ending", timeout=10_000)
    red = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--wrong').trim()")
    ending = timer.evaluate("element => getComputedStyle(element).color")
    assert ending != calm and red, (calm, ending)  # painted red as a person sees it, not only classed
    expect(page.locator(".timer-left")).to_have_text(re.compile(r"^ · 4 min \d{1,2} s left$"))
