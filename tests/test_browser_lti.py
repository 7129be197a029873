# ruff: noqa: F811  (the fixture `platform` comes from tests.test_lti)
"""LTI launches in a real browser (Chromium) from the LTI platform the tests run on 127.0.0.1
(tests/lti_platform.py): a learner's first launch, the first-launch page and the deep-linking
picker at 320 and 1280 px, light and dark, and a launch inside the LMS's page."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from quiz.models import Classroom
from tests.test_browser_every_page import axe_problems
from tests.test_lti import platform, register  # noqa: F401  (platform: the fixture)

pytestmark = [pytest.mark.browser]


@pytest.fixture
def registration(transactional_db, platform):
    return register(platform)


def open_launch(page, live_server, platform, registration, claims, iframe=False):
    login_url = live_server.url + reverse("lti_login", args=[registration.uuid])
    page.goto(platform.launch_page_url(login_url, target_link_uri=live_server.url + reverse("lti_launch"),
                                       login_hint=claims["sub"], claims=claims, iframe=iframe))


def test_an_instructor_and_a_learner_launch_from_the_course_in_a_browser(browser, live_server, platform, registration):
    from tests.browser import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    from tests.factories import make_deck, make_question_set

    make_question_set("Subnetting drills", questions=2)
    make_deck("Ports and protocols")
    teacher = browser.new_context(viewport={"width": 1280, "height": 800})
    page = teacher.new_page()
    open_launch(page, live_server, platform, registration, platform.deep_linking_claims(user_id="t-1", name="Ines"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome from Moodle of Testing")
    page.get_by_role("button", name="Start with a new account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Add an activity to your course")
    expect(page.get_by_label("Question set")).to_contain_text("Subnetting drills")
    assert axe_problems(page) == []
    page.screenshot(path=str(ARTIFACTS / "lti-deep-link-1280.png"), full_page=True)
    teacher.close()

    for width, scheme in ((320, "light"), (390, "dark"), (1280, "dark")):
        context = browser.new_context(viewport={"width": width, "height": 700}, color_scheme=scheme)
        page = context.new_page()
        claims = platform.resource_link_claims(user_id=f"s-{width}-{scheme}", name="Lee Learner")
        open_launch(page, live_server, platform, registration, claims)
        expect(page.get_by_role("heading", level=1)).to_have_text("Welcome from Moodle of Testing")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert axe_problems(page) == []
        page.screenshot(path=str(ARTIFACTS / f"lti-welcome-{width}-{scheme}.png"), full_page=True)
        page.get_by_role("button", name="Start with a new account").click()
        expect(page.get_by_text("You are in Course 1.")).to_be_visible()
        context.close()
    assert Classroom.objects.get().enrollments.count() == 3


def test_a_launch_inside_the_lms_page_offers_a_window_of_its_own(browser, live_server, platform, registration):
    from tests.browser import ARTIFACTS

    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    claims = platform.resource_link_claims(user_id="s-frame", name="Fran")
    open_launch(page, live_server, platform, registration, claims, iframe=True)
    frame = page.frame_locator("iframe")
    link = frame.get_by_test_id("lti-new-window")
    expect(link).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "lti-in-frame.png"))
    refused = context.new_page()
    refused.set_viewport_size({"width": 320, "height": 640})
    refused.goto(live_server.url + reverse("lti_welcome"))  # no launch waiting: the refused page
    expect(refused.get_by_test_id("lti-refused")).to_be_visible()
    assert axe_problems(refused) == [] and refused.evaluate("document.documentElement.scrollWidth") <= 320
    refused.close()
    with context.expect_page() as opened:
        link.click()
    window = opened.value
    expect(window.get_by_role("heading", level=1)).to_have_text("Welcome from Moodle of Testing")
    context.close()
