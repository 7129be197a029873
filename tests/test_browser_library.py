"""Bringing one's own content, in Chromium: an instructor pastes a Moodle GIFT file, reviews the
preview, applies it, builds a question pool from it and assigns it; a learner outside the class
cannot see the set; a learner uploads a CSV deck and studies it."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from quiz.models import Assignment, Deck, QuestionSet, ReviewLog, User, Visibility
from tests.class_factories import make_classroom, make_instructor
from tests.factories import make_question_set, make_user
from tests.test_browser_instructor import local, logged_in_page

pytestmark = pytest.mark.browser
SAMPLES = Path(__file__).parent / "samples"


def test_an_instructor_imports_gift_and_assigns_it_and_a_learner_imports_a_deck(browser, live_server, transactional_db):
    teacher_user = make_instructor("prof")
    classroom = make_classroom(teacher_user, name="Networking 101", learners=[make_user("member")])
    make_user("outsider")
    teacher = logged_in_page(browser, live_server, "prof")

    # Paste, preview (nothing written yet), apply.
    teacher.get_by_role("link", name="My content").click()
    teacher.get_by_role("link", name="Import", exact=True).click()
    teacher.get_by_label("Or paste text").fill((SAMPLES / "networking.gift").read_text(encoding="utf-8"))
    teacher.get_by_label("Name of the pasted text").fill("Networking basics")
    teacher.get_by_role("button", name="Preview").click()
    expect(teacher.get_by_test_id("preview-counts")).to_have_text("10 to add, 0 to change, 0 to remove, 0 unchanged")
    expect(teacher.get_by_test_id("preview-warnings")).to_contain_text("skipped: essay questions are not supported")
    assert not QuestionSet.objects.exists()
    teacher.get_by_role("button", name="Apply").click()
    expect(teacher.get_by_test_id("my-set")).to_contain_text("10 questions · Only me")
    question_set = QuestionSet.objects.get()
    assert question_set.owner == teacher_user and question_set.visibility == Visibility.PRIVATE

    # A pool from the imported set, assigned to the class.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="New question pool").click()
    teacher.get_by_label("Title").fill("Routing check")
    teacher.get_by_role("button", name="Create and pick questions").click()
    teacher.get_by_label("Source set").select_option(label="Networking basics")
    teacher.get_by_role("button", name="Filter").click()
    boxes = teacher.locator('.bank input[name="question"]')
    expect(boxes).to_have_count(10)  # every kind the file holds but the essay
    for index in range(5):
        boxes.nth(index).check()
    teacher.get_by_role("button", name="Add selected").click()
    expect(teacher.locator(".entries li")).to_have_count(5)
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="Networking 101").click()
    teacher.get_by_role("link", name="Assign a question pool").click()
    teacher.get_by_label("Question pool").select_option(label="Routing check")
    now = timezone.now()
    teacher.get_by_label("Opens").fill(local(now - timedelta(hours=1)))
    teacher.get_by_label("Due").fill(local(now + timedelta(days=7)))
    teacher.get_by_role("button", name="Assign").click()
    expect(teacher.get_by_text("Assigned “Routing check”")).to_be_visible()
    assert Assignment.objects.get().classroom == classroom

    # Someone outside the class sees neither the set nor a way to start it.
    outsider = logged_in_page(browser, live_server, "outsider")
    expect(outsider.get_by_role("heading", name="Question sets", level=3)).to_be_visible()
    expect(outsider.get_by_text("Networking basics")).to_have_count(0)
    response = outsider.request.post(f"/sets/{question_set.pk}/start/")
    assert response.status == 404 or "Networking basics" not in response.text()

    # The outsider brings a deck of their own as CSV and studies it.
    outsider.get_by_role("link", name="My content").click()
    outsider.get_by_role("link", name="Import", exact=True).click()
    outsider.get_by_label("Files").set_input_files(str(SAMPLES / "cards.tsv"))
    outsider.get_by_role("button", name="Preview").click()
    expect(outsider.get_by_test_id("preview-counts")).to_contain_text("to add, 0 to change, 0 to remove")
    outsider.get_by_role("button", name="Apply").click()
    deck = Deck.objects.get()
    assert deck.owner.username == "outsider"
    outsider.get_by_test_id("my-deck").get_by_role("link", name="Study", exact=True).click()  # the deck page
    outsider.get_by_role("link", name="Study", exact=True).click()
    outsider.wait_for_load_state("load")
    outsider.keyboard.press("Space")
    expect(outsider.get_by_role("button", name=re.compile(r"^Good"))).to_be_visible()
    outsider.get_by_role("button", name=re.compile(r"^Good")).click()
    expect(outsider.locator(".face-front .card-text")).to_be_visible()
    assert ReviewLog.objects.filter(user__username="outsider", memory__card__deck=deck).count() == 1
    outsider.context.close()
    teacher.context.close()


def test_the_import_page_and_the_question_editor_fit_a_320_px_screen(page):
    from tests.browser import log_in

    log_in(page, "narrow")  # makes the user
    question_set = make_question_set("Mine", questions=1, owner=User.objects.get(username="narrow"))
    page.set_viewport_size({"width": 320, "height": 700})
    for url in ("/library/import/", f"/library/questions/{question_set.questions.get().pk}/"):
        page.goto(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, url


def test_a_learner_reads_the_preview_of_a_file_with_a_bad_question_and_applies_the_rest_at_320_px(page):
    from tests.browser import ARTIFACTS, log_in

    log_in(page, "phone")
    page.set_viewport_size({"width": 320, "height": 700})
    page.goto("/library/import/")
    page.get_by_label("Or paste text").fill(
        "::a:: Which layer routes packets? {~Transport =Network ~Link ####Routing is layer 3.}\n\n"
        "::b:: Which are transport protocols? {~%50%TCP ~%50%UDP ~%-100%IP}\n\n"
        "::c:: Which port does HTTPS use? {~80 ~443}\n\n"  # no right answer: skipped
        "::d:: Pi to two places? {#3.14:0.01}\n\n"
        "::e:: Where is it documented? {=https://www.rfc-editor.org/rfc/rfc9293.html ~nowhere}\n"
    )
    page.get_by_label("Name of the pasted text").fill("networking")
    page.get_by_role("button", name="Preview").click()

    expect(page.get_by_test_id("preview-skipped")).to_contain_text("networking:5: no right answer")
    expect(page.get_by_test_id("preview-counts")).to_have_text("4 to add, 0 to change, 0 to remove, 0 unchanged")
    first = page.get_by_test_id("preview-item").first
    expect(first.locator(".is-correct")).to_have_text("✓ Network marked right")
    expect(page.get_by_role("link", name="Fix the file and upload again")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "import-partial-preview-320.png"), full_page=True)
    assert not QuestionSet.objects.exists()  # nothing written before the apply

    page.get_by_role("button", name="Apply the 4 valid items and skip 1").click()
    expect(page.get_by_text("Skipped 1 item with problems")).to_be_visible()
    expect(page.get_by_test_id("my-set")).to_contain_text("4 questions")
    assert QuestionSet.objects.get().questions.count() == 4


def test_a_long_anki_history_goes_on_by_itself_and_with_a_button_without_javascript(browser, live_server,
                                                                                    transactional_db, monkeypatch):
    """The progress page of an Anki history written in steps: with JavaScript it asks for each next
    step by itself until done; without, a button does. Screenshots of both states, light and dark."""
    from quiz.content import apkg_history
    from quiz.models import Card, HistoryImport
    from tests.browser import ARTIFACTS, sign_in

    monkeypatch.setattr(apkg_history, "STEP_REVIEWS", 1)
    learner = make_user("mover")
    deck = Deck.objects.create(title="Networking::Ports", owner=learner)
    start = int((timezone.now() - timedelta(days=30)).timestamp() * 1000)
    reviews = {}
    for number in range(4):
        Card.objects.create(deck=deck, key=f"n{number}:0", position=number, front=f"Port {number}?", back="22")
        reviews[f"n{number}:0"] = [[start + number * 1000, 3, 8000], [start + 86_400_000 * 3 + number, 3, 6000]]
    job = HistoryImport.objects.create(owner=learner, deck=deck, reviews=reviews, total=8, left=8, cards=4)
    ARTIFACTS.mkdir(exist_ok=True)

    for width, scheme in ((320, "light"), (390, "dark"), (1280, "light"), (1280, "dark")):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 700},
                                      java_script_enabled=False, color_scheme=scheme)
        page = context.new_page()
        sign_in(page, "mover")
        page.goto("/library/import/anki-history/")
        expect(page.get_by_test_id("history-progress")).to_contain_text("of 8 reviews written")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"anki-history-{width}-{scheme}.png"), full_page=True)
        context.close()

    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    sign_in(page, "mover")
    page.goto("/library/import/anki-history/")
    page.get_by_role("button", name="Write the next reviews").click()
    expect(page.get_by_test_id("history-progress")).to_contain_text("2 of 8 reviews written (25%)")
    context.close()

    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    sign_in(page, "mover")
    page.goto("/library/import/anki-history/")
    expect(page.get_by_test_id("history-progress")).to_contain_text("Done: 8 reviews imported; these cards keep their schedule.")
    page.screenshot(path=str(ARTIFACTS / "anki-history-done.png"), full_page=True)
    job.refresh_from_db()
    assert job.finished_at and ReviewLog.objects.filter(user=learner).count() == 8
    context.close()
