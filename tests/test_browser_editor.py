"""The editor in Chromium: a question edited in place (HTMX swaps the form in and the saved
question back, a choice added and marked correct without leaving the page), and a card
added below a deck's cards."""

import pytest
from playwright.sync_api import expect

from quiz.models import Card, Question
from tests.browser import sign_in
from tests.factories import make_deck, make_question_set, make_user

pytestmark = pytest.mark.browser


def open_question_as_kind(page, author, width, kind):
    """A one-question set of `author`'s, its editor open at `width` px with the kind chosen:
    (the question, its editor form)."""
    question = make_question_set(author.title(), questions=1, owner=make_user(author)).questions.get()
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, author)
    page.goto(f"/library/questions/{question.pk}/")
    page.get_by_label("Kind").select_option(label=kind)
    return question, page.locator(f"#question-{question.pk}.editing form")


def test_a_question_is_edited_in_place_and_a_card_is_added(page):
    owner = make_user("author")
    question_set = make_question_set("Interconnects", questions=2, owner=owner)
    deck = make_deck("Interconnect cards", cards=1, owner=owner)
    question = question_set.questions.get(position=1)
    sign_in(page, "author")

    page.get_by_role("link", name="My content", exact=True).click()
    page.get_by_role("link", name="Interconnects").click()
    url = page.url
    item = page.locator(f"#question-{question.pk}")
    item.get_by_role("link", name="Edit").click()

    # The form replaced the question, in the same page.
    editor = page.locator(f"#question-{question.pk}.editing form")
    expect(editor.get_by_label("Question", exact=True)).to_have_value("Question 1 stem?")
    expect(editor.get_by_label("Question", exact=True)).to_be_focused()  # not the page body
    editor.get_by_label("Question", exact=True).fill("Which link joins GPUs directly?")
    editor.get_by_role("button", name="Add a choice").click()
    editor = page.locator(f"#question-{question.pk}.editing form")
    expect(editor.locator("textarea[name=choice_5]")).to_be_visible()
    editor.get_by_label("Choice 5", exact=True).fill("NVLink")
    editor.locator("input[name=correct][value='5']").check()
    editor.get_by_role("button", name="Remove choice 1").click()
    editor = page.locator(f"#question-{question.pk}.editing form")
    expect(editor.locator("textarea[name=choice_5]")).to_have_count(0)
    editor.get_by_label("Topics").fill("Interconnects")
    editor.get_by_role("button", name="Save", exact=True).last.click()

    saved = page.locator(f"#question-{question.pk}")
    expect(saved.locator(".stem")).to_have_text("Which link joins GPUs directly?")
    expect(saved.locator(".tag-correct").first).to_contain_text("NVLink")
    assert page.url == url  # swapped in place, no page load
    question.refresh_from_db()
    assert question.stem == "Which link joins GPUs directly?"
    assert question.choices.get(is_correct=True).text == "NVLink" and question.choices.count() == 4

    # A card, added below the deck's cards.
    page.get_by_role("link", name="My content", exact=True).click()
    page.get_by_role("link", name="Interconnect cards").click()
    page.get_by_role("link", name="Add a card").click()
    form = page.locator("#new-item form")
    form.get_by_label("Front").fill("NVSwitch")
    form.get_by_label("Back").fill("Connects many GPUs with NVLink at full speed")
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_test_id("card")).to_have_count(2)
    expect(page.get_by_test_id("card").last).to_contain_text("NVSwitch")
    expect(page.locator("#new-item form")).to_have_count(0)
    assert list(Card.objects.filter(deck=deck).order_by("position").values_list("front", flat=True)) == [
        "Front 1", "NVSwitch"
    ]
    assert Question.objects.count() == 2


def test_a_question_becomes_choose_two_then_true_false_without_leaving_the_page(page):
    owner = make_user("kinds-author")
    question_set = make_question_set("Kinds", questions=1, owner=owner)
    question = question_set.questions.get()
    sign_in(page, "kinds-author")
    page.goto(f"/library/questions/{question.pk}/")
    page.evaluate("window.stillTheSamePage = true")

    page.get_by_label("Kind").select_option(label="Choose N")
    form = page.locator(f"#question-{question.pk}.editing form")
    expect(form.locator('input[type="checkbox"][name="correct"]')).to_have_count(4)  # checkboxes now
    form.locator("input[name=correct][value='2']").check()  # with the first, already right
    form.get_by_role("button", name="Save").last.click()
    expect(page.locator(f"#question-{question.pk}")).to_contain_text("Choose N")
    page.wait_for_load_state("networkidle")  # the server done with the page before the test reads the database
    question.refresh_from_db()
    assert question.kind == Question.Kind.CHOOSE and [c.is_correct for c in question.choices.all()] == [True, True, False, False]

    page.goto(f"/library/questions/{question.pk}/")
    page.evaluate("window.stillTheSamePage = true")
    page.get_by_label("Kind").select_option(label="True or false")
    form = page.locator(f"#question-{question.pk}.editing form")
    expect(form.locator("textarea[name^=choice_]")).to_have_count(2)
    expect(form.locator("textarea[name=choice_1]")).to_have_value("True")
    assert page.evaluate("window.stillTheSamePage") is True  # HTMX swapped the form, no reload


def test_partial_credit_shows_a_weight_per_choice_that_fits_a_phone(page):
    from tests.browser import ARTIFACTS

    question, form = open_question_as_kind(page, "weights-author", 320, "Select all that apply")
    page.locator('input[name="partial_credit"]').check()
    expect(form.locator("input.weight-input")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-weights-320.png"), full_page=True)


def test_a_question_becomes_a_typed_number_with_a_tolerance_per_value(page):
    from tests.browser import ARTIFACTS

    question, form = open_question_as_kind(page, "numbers-author", 390, "Number (typed)")
    expect(form.locator('input[name^="tolerance_"]')).to_have_count(4)
    expect(form.locator('input[name="correct"]')).to_have_count(0)
    for left in (3, 2, 1):  # one accepted value is enough
        form = page.locator(f"#question-{question.pk}.editing form")
        form.get_by_role("button", name="Remove choice 2").click()
        expect(page.locator(f"#question-{question.pk}.editing form textarea[name^=choice_]")).to_have_count(left)
    form = page.locator(f"#question-{question.pk}.editing form")
    form.get_by_label("Choice 1", exact=True).fill("8")
    form.locator('input[name="tolerance_1"]').fill("0")
    page.screenshot(path=str(ARTIFACTS / "editor-number-390.png"), full_page=True)
    # After a full-page screenshot of a scrolled page, Chromium scrolls back on the next press,
    # between mouse down and up, and the click below would land beside Save: start from the top.
    page.evaluate("() => window.scrollTo(0, 0)")
    form.get_by_role("button", name="Save").last.click()
    saved = page.locator(f"#question-{question.pk}")
    expect(saved).to_contain_text("Number (typed)")  # what the database now holds, as the set page lists it
    expect(saved.locator(".review-choices li")).to_have_count(1)
    expect(saved.locator(".review-choices li")).to_contain_text("8")


def test_a_question_becomes_matching_with_an_option_per_item_that_fits_a_phone(page):
    from tests.browser import ARTIFACTS

    question, form = open_question_as_kind(page, "pairs-author", 320, "Matching")
    expect(form.locator('input[name^="match_"]')).to_have_count(4)
    expect(form.locator('input[name="correct"]')).to_have_count(0)
    for number, (item, option) in enumerate([("TCP", "Transport"), ("IP", "Network"), ("Ethernet", "Link"), ("", "Session")], 1):
        form.get_by_label(f"Item {number}", exact=True).fill(item)
        form.locator(f'input[name="match_{number}"]').fill(option)
    form.get_by_label("Partial credit").check()
    form = page.locator(f"#question-{question.pk}.editing form")
    expect(form.get_by_label("Item 1", exact=True)).to_have_value("TCP")  # ticking re-rendered the form, keeping the rows
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-matching-320.png"), full_page=True)
    form.get_by_role("button", name="Save").last.click()

    saved = page.locator(f"#question-{question.pk}")
    expect(saved).to_contain_text("Matching, partial credit")
    expect(saved.locator(".review-choices li")).to_have_text(["TCP → Transport", "IP → Network", "Ethernet → Link", "extra option: Session"])
