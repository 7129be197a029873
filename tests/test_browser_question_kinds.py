"""A learner answers a choose-two question by keyboard (number keys tick and untick, Enter
submits) and a true/false one by its buttons, in a real Chromium with HTMX; the pages are
photographed at phone and desktop widths, light and dark, for a person to look at."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from quiz.models import Question, QuestionSet
from tests.browser import ARTIFACTS, log_in
from tests.factories import make_kind_question, make_matching_question
from tests.test_browser_every_page import axe_problems

pytestmark = pytest.mark.browser

Kind = Question.Kind


def shown_texts(page):
    return page.locator("#question-card .choice-text").all_inner_texts()


def test_a_choose_two_question_by_keyboard_and_a_true_false_one_by_its_buttons(page):
    question_set = QuestionSet.objects.create(title="Kinds")
    make_kind_question(question_set, 1, Kind.CHOOSE, {0, 2}, texts=["H100", "Xeon", "A100", "EPYC"])
    make_kind_question(question_set, 2, Kind.TRUE_FALSE, {0})
    log_in(page, "kim")

    page.get_by_role("button", name="Start quiz").first.click()
    expect(page.get_by_test_id("pick-instruction")).to_have_text("Choose two.")
    assert axe_problems(page) == []  # checkboxes with their labels, in light mode
    page.wait_for_load_state("load")
    page.evaluate("window.stillTheSamePage = true")
    texts = shown_texts(page)
    keys = [str(texts.index(text) + 1) for text in ("H100", "A100")]
    wrong = str(texts.index("Xeon") + 1)

    page.keyboard.press(wrong)  # tick a wrong one, then untick it: number keys toggle
    page.keyboard.press(wrong)
    for key in keys:
        page.keyboard.press(key)
    expect(page.locator('#question-card input[type="checkbox"]:checked')).to_have_count(2)
    page.keyboard.press("Enter")

    expect(page.locator(".verdict")).to_have_text("Correct!")
    assert page.evaluate("window.stillTheSamePage") is True  # swapped in by HTMX, no reload
    page.get_by_role("link", name="Next question").click()

    expect(page.get_by_role("button", name="True")).to_be_visible()
    expect(page.locator("#question-card .true-false-button")).to_have_count(2)
    page.emulate_media(color_scheme="dark")
    assert axe_problems(page) == []  # the True/False buttons, in dark mode
    for width, scheme in ((320, "light"), (390, "dark"), (1280, "dark")):
        page.set_viewport_size({"width": width, "height": 800})
        page.emulate_media(color_scheme=scheme)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"true-false-{width}-{scheme}.png"), full_page=True)
    page.keyboard.press("1")  # True, the right one

    expect(page.locator(".verdict")).to_have_text("Correct!")
    expect(page.get_by_role("link", name="See results")).to_be_visible()


def test_feedback_on_several_picks_names_the_wrong_pick_and_the_missed_one(page):
    question_set = QuestionSet.objects.create(title="Select")
    make_kind_question(question_set, 1, Kind.SELECT_ALL, {0, 1}, texts=["NFS", "S3", "HTTP"], partial_credit=True)
    log_in(page, "lee")

    page.get_by_role("button", name="Start quiz").first.click()
    expect(page.get_by_test_id("pick-instruction")).to_have_text("Select all that apply.")
    page.get_by_label("NFS").check()
    page.get_by_label("HTTP").check()
    page.get_by_role("button", name="Submit answer").click()

    expect(page.locator(".verdict")).to_have_text("Not quite.")  # 1/2 - 1/2: nothing
    expect(page.get_by_test_id("wrong-pick")).to_have_count(1)
    expect(page.get_by_test_id("missed")).to_have_count(1)
    assert axe_problems(page) == []  # the wrong-pick and missed tags keep their contrast
    for width, scheme in ((320, "dark"), (1280, "light")):
        page.set_viewport_size({"width": width, "height": 800})
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(ARTIFACTS / f"select-all-feedback-{width}-{scheme}.png"), full_page=True)


def test_a_typed_number_by_keyboard_with_its_feedback(page):
    from decimal import Decimal

    from quiz.models import Choice

    question_set = QuestionSet.objects.create(title="Typed")
    question = Question.objects.create(question_set=question_set, key="q1", position=1, stem="How many GPUs in a DGX H100?",
                                       explanation="Eight H100 GPUs.", kind=Kind.NUMERICAL)
    Choice.objects.create(question=question, text="8", is_correct=True, tolerance=Decimal(0), position=1)
    log_in(page, "tess")

    page.get_by_role("button", name="Start quiz").first.click()
    box = page.get_by_label("Your answer (a number)")
    expect(box).to_be_visible()
    assert "8" not in page.locator("#question-card").inner_text() and "Eight" not in page.content()
    assert axe_problems(page) == []
    box.fill("eight")
    box.press("Enter")
    expect(page.get_by_role("alert")).to_contain_text("Type a number, such as 42 or 3.14.")
    page.get_by_label("Your answer (a number)").fill("8")
    page.get_by_label("Your answer (a number)").press("Enter")

    expect(page.locator(".verdict")).to_have_text("Correct!")
    expect(page.get_by_test_id("matched")).to_have_count(1)
    for width, scheme in ((320, "light"), (390, "dark"), (1280, "light")):
        page.set_viewport_size({"width": width, "height": 800})
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(ARTIFACTS / f"typed-number-{width}-{scheme}.png"), full_page=True)


def test_a_matching_question_with_a_select_per_item_and_its_feedback(page):
    from quiz.models import Attempt

    make_matching_question(QuestionSet.objects.create(title="Layers"))
    log_in(page, "mia")

    page.get_by_role("button", name="Start quiz").first.click()
    expect(page.get_by_label("TCP")).to_be_visible()
    assert axe_problems(page) == []
    page.get_by_label("TCP").select_option(label="Transport")
    page.get_by_label("IP").select_option(label="Physical")  # wrong
    page.get_by_role("button", name="Submit answer").click()

    expect(page.locator(".verdict")).to_have_text("Partly right: 50% of the mark.")
    expect(page.get_by_test_id("pair")).to_have_count(2)
    assert Attempt.objects.get(user__username="mia").slots.get().credit == Decimal("0.5")
    for width, scheme in ((320, "dark"), (1280, "light")):
        page.set_viewport_size({"width": width, "height": 800})
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(ARTIFACTS / f"matching-{width}-{scheme}.png"), full_page=True)


def test_a_matching_question_by_keyboard_alone(page):
    from quiz.models import Attempt

    make_matching_question(QuestionSet.objects.create(title="Layers"))
    log_in(page, "kai")
    page.get_by_role("button", name="Start quiz").first.click()
    selects = page.locator("form.answer-form select")
    expect(selects).to_have_count(2)
    selects.first.focus()
    page.keyboard.press("ArrowDown")  # arrow keys pick an option in a closed select
    expect(selects.first).not_to_have_value("")
    page.keyboard.press("Tab")  # on to the next item
    page.keyboard.press("ArrowDown")
    expect(selects.last).not_to_have_value("")
    page.keyboard.press("Enter")  # submits, as in a text box

    expect(page.locator(".verdict")).to_be_visible()
    slot = Attempt.objects.get(user__username="kai").slots.get()
    assert slot.is_answered and len(slot.chosen_numbers) == 2
