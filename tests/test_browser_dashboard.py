"""After some study, the dashboard's weakest topic leads into a session, and its charts can be read
without seeing them, in Chromium."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from quiz.models import Attempt
from tests.factories import PASSWORD, make_deck, make_question_set, make_topic, make_user
from tests.helpers import rate_item

pytestmark = pytest.mark.browser


def answer_every_question(page, count, pick):
    """Answer the open quiz by clicking: `pick(number)` is the on-screen choice for question `number`."""
    for number in range(1, count + 1):
        expect(page.locator(".progress-label")).to_have_text(f"Question {number} of {count}")
        page.locator(".choice").nth(pick(number) - 1).click()
        page.get_by_role("button", name="Submit answer").click()
        expect(page.locator(".verdict")).to_be_visible()
        page.get_by_role("link", name=re.compile("Next question|See results")).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Results")


def test_the_weakest_topic_leads_into_a_session_and_the_charts_have_text_alternatives(page):
    question_set = make_question_set("Multi-GPU", questions=4)
    questions = list(question_set.questions.all())
    strong, weak = make_topic("Parallelism"), make_topic("NVLink")
    strong.questions.add(*questions[:2])
    weak.questions.add(*questions[2:])
    make_user("dana")

    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    # Some study: the Parallelism questions right, the NVLink ones wrong.
    page.get_by_role("button", name="Start quiz").first.click()
    attempt = Attempt.objects.get()
    slots = {slot.position: slot for slot in attempt.slots.all()}

    def pick(number):
        slot = slots[number]
        right = slot.question_id in {q.pk for q in questions[:2]}
        return next(n for n, c in enumerate(slot.shown_choices, start=1) if c["correct"] == right)

    answer_every_question(page, 4, pick)
    page.goto("/")

    # Charts are images with a name and a description, and each has a table to open.
    for name in ("Answers per day", "Reviews due per day", "Reviews per day over the last year"):
        chart = page.get_by_role("img", name=re.compile(name))
        expect(chart).to_have_count(1)
        desc_id = chart.get_attribute("aria-labelledby").split()[1]
        expect(page.locator(f"#{desc_id}")).not_to_be_empty()
    expect(page.get_by_test_id("accuracy-chart")).to_have_attribute("aria-labelledby", "accuracy-title accuracy-desc")
    page.get_by_text("Accuracy as a table").click()
    expect(page.get_by_test_id("accuracy-table")).to_contain_text("4")
    expect(page.get_by_test_id("heatmap-summary")).to_contain_text("4 reviews and answers on 1 day")

    # Each bar and heatmap cell has a tooltip: today's bar is the last of the accuracy chart,
    # today's cell the last of the heatmap's values.
    accuracy = page.get_by_test_id("accuracy-chart")
    accuracy.scroll_into_view_if_needed()
    box = accuracy.bounding_box()
    width, left, step = accuracy.evaluate("s => [s.viewBox.baseVal.width, Number(s.dataset.left), Number(s.dataset.step)]")
    last_bar = left + step * 29.5
    page.mouse.move(box["x"] + last_bar * box["width"] / width, box["y"] + box["height"] / 2)
    expect(page.locator(".chart-tip")).to_contain_text("4 answers, 2 right")
    heat = page.get_by_test_id("heatmap")
    days = len(heat.get_attribute("data-values").split(","))
    column, row = divmod(days - 1, 7)
    heat.scroll_into_view_if_needed()
    box = heat.bounding_box()
    width, left, top = heat.evaluate("s => [s.viewBox.baseVal.width, Number(s.dataset.left), Number(s.dataset.top)]")
    scale = box["width"] / width
    page.mouse.move(box["x"] + (left + column * 11 + 4) * scale, box["y"] + (top + row * 11 + 4) * scale)
    expect(page.locator(".chart-tip")).to_contain_text("4 reviews")
    page.mouse.move(0, 0)
    expect(page.locator(".chart-tip")).to_be_hidden()

    # Topics, weakest first: NVLink leads, and its link starts a quiz of its questions.
    topics = page.get_by_test_id("mastery-topics")
    expect(topics.locator(".mastery-name").first).to_have_text("NVLink")
    topics.get_by_test_id("topic-link").first.click()

    expect(page.locator(".progress-label")).to_have_text("Question 1 of 2")
    topic_attempt = Attempt.objects.exclude(pk=attempt.pk).get()
    assert topic_attempt.title == "Topic: NVLink"
    assert {slot.question_id for slot in topic_attempt.slots.all()} == {q.pk for q in questions[2:]}


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_the_charts_have_dated_axes_a_scale_and_legends_and_fit_a_320_px_screen(page):
    learner = make_user("erin")
    cards = list(make_deck("Memory", cards=6).cards.all())
    now = timezone.now()
    # Study spread over the last months: bars in the last 30 days, squares on the heatmap, reviews ahead.
    for days_ago, card in zip((70, 40, 12, 5, 2, 1), cards):
        rate_item(learner, card, 3, now - timedelta(days=days_ago))
        rate_item(learner, card, 1 if days_ago == 2 else 3, now - timedelta(days=days_ago, hours=-1))
    log_in(page, "erin")

    page.goto("/")
    accuracy = page.get_by_test_id("accuracy-chart")
    expect(accuracy.locator(".legend")).to_contain_text("right")
    expect(accuracy.locator(".legend")).to_contain_text("wrong")
    expect(accuracy.locator("text.y-label").first).to_have_text("0")
    today = now.astimezone(learner.zone).date().strftime("%-d %b")
    expect(accuracy.locator("text.x-label").last).to_have_text(today)
    expect(page.get_by_test_id("forecast-chart").locator("text.x-label").first).to_have_text(today)
    heat = page.get_by_test_id("heatmap")
    expect(heat.locator("text.x-label").first).to_be_visible()
    expect(heat.locator("text.y-label", has_text="Mon")).to_be_visible()
    # Each week column carries its own tooltip text (a <title>, for browsers without JavaScript).
    expect(heat.locator("rect")).not_to_have_count(0)

    page.set_viewport_size({"width": 320, "height": 700})
    page.reload()
    assert no_sideways_scroll(page)
    for label in (accuracy.locator("text.x-label").last, accuracy.locator("text.y-label").last):
        label.scroll_into_view_if_needed()
        assert label.bounding_box()["height"] >= 8  # a date or a number one can read on a phone
    # The heatmap scrolls inside its own box, its squares at least 8 px, the latest weeks shown first.
    box = page.locator(".chart-scroll")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")
    width = heat.evaluate("s => s.viewBox.baseVal.width")
    assert heat.bounding_box()["width"] / width * 9 >= 8
    latest = heat.locator("text.x-label").last.bounding_box()
    assert 0 <= latest["x"] < 320, "the box opens on the latest weeks"


def test_a_two_line_answer_shows_on_two_lines_even_at_320_px(page):
    make_user("fay")
    card = make_deck("Lines", cards=1).cards.get()
    card.back = "First line\nSecond line"
    card.save()
    log_in(page, "fay")
    page.set_viewport_size({"width": 320, "height": 700})

    page.goto(f"/cards/{card.pk}/")
    answer = page.locator("dd.as-written").nth(1)
    expect(answer).to_have_text("First line\nSecond line")
    line_height = answer.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 20")
    assert answer.bounding_box()["height"] >= 1.8 * line_height
    assert no_sideways_scroll(page)
