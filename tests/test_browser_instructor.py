"""An instructor runs a class in Chromium: creates it, builds a question pool, assigns it with a
time limit; a learner joins with the code and takes it; the instructor sees the score and
the item analysis."""

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from quiz.models import Attempt, Question
from tests.class_factories import make_instructor
from tests.factories import PASSWORD, make_user
from tests.test_browser_quiz import SEED

pytestmark = pytest.mark.browser


def logged_in_page(browser, live_server, username):
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="Log out").or_(page.get_by_role("button", name="Log out"))).to_be_visible()
    return page


def local(moment):
    return timezone.localtime(moment, timezone.get_default_timezone()).strftime("%Y-%m-%dT%H:%M")


def test_an_instructor_runs_a_class_and_a_learner_takes_the_assignment(browser, live_server, transactional_db):
    call_command("import_questions", str(SEED), verbosity=0)
    make_instructor("prof")
    make_user("student")
    teacher = logged_in_page(browser, live_server, "prof")

    # A class with a join code.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_label("New class").fill("GPU operations")
    teacher.get_by_role("button", name="Create class").click()
    expect(teacher.get_by_role("heading", level=1)).to_have_text("GPU operations")
    code = teacher.get_by_test_id("join-code").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{8}", code)

    # A question pool of three questions picked from the bank.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="New question pool").click()
    teacher.get_by_label("Title").fill("Parallelism check")
    teacher.get_by_role("button", name="Create and pick questions").click()
    teacher.get_by_label("Search").fill("parallel")
    teacher.get_by_role("button", name="Filter").click()
    boxes = teacher.locator('.bank input[name="question"]')
    expect(boxes.first).to_be_visible()
    for index in range(3):
        boxes.nth(index).check()
    teacher.get_by_role("button", name="Add selected").click()
    expect(teacher.locator(".entries li")).to_have_count(3)

    # Assigned to the class with a 10-minute limit.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="GPU operations").click()
    teacher.get_by_role("link", name="Assign a question pool").click()
    teacher.get_by_label("Question pool").select_option(label="Parallelism check")
    now = timezone.now()
    teacher.get_by_label("Opens").fill(local(now - timedelta(hours=1)))
    teacher.get_by_label("Due").fill(local(now + timedelta(days=7)))
    teacher.get_by_label("Time limit (minutes)").fill("10")
    teacher.get_by_label("Attempts allowed").fill("2")
    teacher.get_by_role("button", name="Assign").click()
    expect(teacher.get_by_text("Assigned “Parallelism check”")).to_be_visible()

    # The learner joins with the code and takes it.
    student = logged_in_page(browser, live_server, "student")
    student.get_by_role("link", name="Classes").click()
    student.get_by_role("link", name="Join a class", exact=True).click()
    student.get_by_label("Class code").fill(code.lower())
    student.get_by_role("button", name="Join").click()
    expect(student.get_by_text("You joined GPU operations")).to_be_visible()
    student.get_by_role("link", name="Parallelism check").click()
    expect(student.get_by_test_id("status")).to_have_text("Not started")
    student.get_by_role("button", name="Start").click()
    expect(student.locator(".timer")).to_contain_text("left")
    for number in range(1, 4):
        expect(student.locator(".progress-label")).to_have_text(f"Question {number} of 3")
        stem = student.locator("#question-card h2.stem").inner_text()
        right = Question.objects.get(stem=stem).choices.get(is_correct=True).text
        student.locator("#question-card .choice", has_text=right).click()
        student.get_by_role("button", name="Submit answer").click()
        expect(student.locator(".verdict")).to_have_text("Correct!")
        student.locator("#next-link").click()
    expect(student.get_by_test_id("score")).to_contain_text("3 of 3")
    attempt = Attempt.objects.get(user__username="student")
    assert attempt.assignment.title == "Parallelism check" and attempt.deadline is not None

    # The instructor sees the score in the gradebook, and the item analysis.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="Gradebook").first.click()
    expect(teacher.locator(".gradebook tbody tr")).to_have_count(1)
    expect(teacher.locator(".gradebook tbody")).to_contain_text("student")
    expect(teacher.locator(".grade-cell strong")).to_have_text("100%")
    teacher.goto(f"/teach/assignments/{attempt.assignment_id}/analysis/")
    expect(teacher.get_by_test_id("facility")).to_have_count(3)
    expect(teacher.get_by_test_id("facility").first).to_have_text("100%")
    student.context.close()
    teacher.context.close()
