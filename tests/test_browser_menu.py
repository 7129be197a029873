"""The site's menu: one line on a laptop, a "Menu" disclosure on a phone that opens and closes by
keyboard and without JavaScript, and a header short enough that a quiz's first choice shows on
a small phone without scrolling."""

import pytest
from playwright.sync_api import expect

from tests.browser import sign_in
from tests.class_factories import make_instructor
from tests.factories import make_question_set, make_user, start_attempt

pytestmark = pytest.mark.browser

# An instructor's menu is the longest: every link, Teach, and a username of Django's full length.
LONG_USERNAME = "tomasz_wisniewski_" * 8
LINKS = ["Dashboard", "Library", "Review", "My content", "History", "Classes", "Teach", "Settings"]


def menu(page):
    return page.get_by_role("navigation", name="Main")


def on_one_line(locator):
    """Whether the elements share a line: each one's box overlaps every other's, top to bottom."""
    return locator.evaluate_all("""els => {
        const boxes = els.map(e => e.getBoundingClientRect());
        return Math.max(...boxes.map(b => b.top)) < Math.min(...boxes.map(b => b.bottom));
    }""")


def test_an_instructor_sees_the_whole_menu_on_one_line_on_a_laptop(page):
    make_instructor(LONG_USERNAME[:150])
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_in(page, LONG_USERNAME[:150])

    nav = menu(page)
    expect(nav.get_by_role("button", name="Log out")).to_be_visible()
    for name in LINKS:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(nav.get_by_text("Menu", exact=True)).to_be_hidden()
    nav.get_by_role("link", name="Certify").focus()
    page.keyboard.press("Tab")
    expect(nav.get_by_role("link", name="Dashboard")).to_be_focused()
    # One line: the brand, each link, the username and Log out share a row.
    assert on_one_line(nav.locator(".brand, .nav-links a, .nav-user, button"))
    # The username is cut short on screen, whole for a screen reader and on hover.
    user = nav.locator(".nav-user")
    assert user.evaluate("e => e.scrollWidth > e.clientWidth"), "a long username is cut short"
    expect(user).to_have_attribute("title", LONG_USERNAME[:150])


@pytest.mark.parametrize("width", [320, 390])
def test_on_a_phone_the_menu_is_a_disclosure_that_opens_and_closes_by_keyboard(browser, live_server, transactional_db, width):
    make_instructor("ines")
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 700}, is_mobile=True, has_touch=True)
    page = context.new_page()
    sign_in(page, "ines")
    nav = menu(page)
    summary = nav.locator("summary")
    expect(summary).to_have_text("Menu")
    # Closed: only the brand and "Menu", on one line, and nothing wider than the screen.
    expect(nav.get_by_role("link", name="Teach")).to_be_hidden()
    assert on_one_line(nav.locator(".brand, summary"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    # Tab from the brand reaches "Menu"; Enter opens it, and the next Tab goes to its first link.
    nav.get_by_role("link", name="Certify").focus()
    page.keyboard.press("Tab")
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    for name in LINKS:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(nav.get_by_role("button", name="Log out")).to_be_visible()
    expect(nav.get_by_text("ines")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.keyboard.press("Tab")
    expect(nav.get_by_role("link", name="Dashboard")).to_be_focused()

    # Escape closes it from inside, back on "Menu"; Space on "Menu" opens and closes it again.
    page.keyboard.press("Escape")
    expect(nav.get_by_role("link", name="Dashboard")).to_be_hidden()
    expect(summary).to_be_focused()
    page.keyboard.press("Space")
    expect(nav.get_by_role("link", name="Dashboard")).to_be_visible()
    page.keyboard.press("Space")
    expect(nav.get_by_role("link", name="Dashboard")).to_be_hidden()
    context.close()


def test_the_phone_menu_works_without_javascript(browser, live_server, transactional_db):
    make_user("lena")
    context = browser.new_context(base_url=live_server.url, viewport={"width": 320, "height": 640}, java_script_enabled=False)
    page = context.new_page()
    sign_in(page, "lena")
    nav = menu(page)
    expect(nav.get_by_role("link", name="History")).to_be_hidden()

    nav.get_by_text("Menu", exact=True).click()
    nav.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("My attempts")

    nav.get_by_text("Menu", exact=True).click()
    nav.get_by_role("button", name="Log out").click()
    expect(nav.get_by_role("link", name="Log in")).to_be_visible()
    context.close()


def test_a_visitor_sees_log_in_and_sign_up_without_a_disclosure_on_a_phone(page):
    page.set_viewport_size({"width": 320, "height": 640})
    page.goto("/accounts/login/")
    nav = menu(page)

    expect(nav.locator("summary")).to_have_count(0)
    assert on_one_line(nav.locator(".brand, .nav-links a"))


@pytest.mark.parametrize("width, height", [(320, 640), (390, 844)])
def test_a_quiz_question_shows_its_first_choice_without_scrolling_on_a_phone(browser, live_server, transactional_db, width, height):
    learner = make_user("lena")
    question_set = make_question_set("Networking fundamentals: subnetting, routing and switching", questions=3)
    question_set.questions.filter(position=1).update(
        stem="A host at 192.168.10.77/27 must reach its default gateway. Which address can the gateway have?",
    )
    attempt = start_attempt(learner, question_set)
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    page = context.new_page()
    sign_in(page, "lena")
    page.goto(f"/attempts/{attempt.pk}/")

    first_choice = page.locator(".choice").first
    expect(first_choice).to_be_visible()
    box = first_choice.bounding_box()
    assert page.evaluate("scrollY") == 0
    assert box["y"] + box["height"] <= height, f"the first choice ends at {box['y'] + box['height']} px of {height}"
    context.close()
