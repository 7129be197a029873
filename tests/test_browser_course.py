"""An instructor runs a course in Chromium: the builder shows the bank at once, a pool is built
and its answer key read, assigned with the form's default dates, previewed as a learner and
edited; after learners' attempts a broken question is excluded and the gradebook recomputes."""

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from quiz.models import Assignment
from tests.class_factories import make_classroom, make_instructor, take
from tests.factories import make_question_set, make_user
from tests.test_browser_instructor import logged_in_page

pytestmark = pytest.mark.browser


def test_an_instructor_builds_assigns_edits_and_excludes_a_broken_question(browser, live_server, transactional_db):
    ann, ben = make_user("ann"), make_user("ben")
    make_classroom(make_instructor("prof"), name="Week one", learners=[ann, ben])
    questions = list(make_question_set("Basics", questions=3).questions.order_by("position"))
    teacher = logged_in_page(browser, live_server, "prof")

    # The builder lists the bank on first load: no empty Filter press needed.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="New question pool").click()
    teacher.get_by_label("Title").fill("Basics check")
    teacher.get_by_role("button", name="Create and pick questions").click()
    boxes = teacher.locator('.bank input[name="question"]')
    expect(boxes).to_have_count(3)
    teacher.get_by_label("Select all on this page").check()
    for index in range(3):
        expect(boxes.nth(index)).to_be_checked()
    teacher.get_by_role("button", name="Add selected").click()
    expect(teacher.locator(".entries li")).to_have_count(3)
    teacher.get_by_role("link", name="Answer key").click()
    expect(teacher.get_by_text(questions[0].stem)).to_be_visible()

    # Assigned with the default dates (open now, due in a week), then previewed and edited.
    teacher.get_by_role("link", name="Teach").click()
    teacher.get_by_role("link", name="Week one").click()
    teacher.context.grant_permissions(["clipboard-read", "clipboard-write"])
    teacher.get_by_role("button", name="Copy link").click()
    expect(teacher.get_by_role("status").filter(has_text="Copied.")).to_be_visible()
    assert teacher.evaluate("navigator.clipboard.readText()") == teacher.get_by_label("Join link").input_value()
    teacher.get_by_role("link", name="Assign a question pool").click()
    expect(teacher.get_by_label("Opens")).not_to_have_value("")
    teacher.get_by_label("Question pool").select_option(label="Basics check")
    teacher.get_by_label("Shuffle").uncheck()
    teacher.get_by_role("button", name="Assign").click()
    expect(teacher.get_by_text("Assigned “Basics check”")).to_be_visible()
    teacher.get_by_role("link", name="Preview as a learner").click()
    expect(teacher.get_by_text(questions[2].stem)).to_be_visible()
    teacher.go_back()
    teacher.get_by_role("link", name="Edit", exact=True).click()
    teacher.get_by_label("Title").fill("Basics, week one")
    teacher.get_by_role("button", name="Save").click()
    expect(teacher.get_by_text("Saved “Basics, week one”")).to_be_visible()

    # Two learners answer; question 3's key is broken: both miss it.
    assignment = Assignment.objects.get(title="Basics, week one")
    take(assignment, ann, (0, 1, 0), start=timezone.now())  # right, right, wrong: 67%
    take(assignment, ben, (0, 0, 0), start=timezone.now())  # right, wrong, wrong: 33%
    teacher.get_by_role("link", name="Gradebook").click()
    expect(teacher.locator(".grade-cell strong")).to_have_text(["67%", "33%"])

    # Excluded from item analysis, after a confirmation page; the gradebook recomputes.
    teacher.go_back()
    teacher.get_by_role("link", name="Item analysis").click()
    teacher.get_by_test_id("summary-row").nth(2).get_by_role("link", name="Exclude…").click()
    expect(teacher.get_by_role("heading", level=1)).to_contain_text("Exclude")
    teacher.get_by_role("button", name="Exclude").click()
    expect(teacher.get_by_text("Excluded: it no longer counts in any score.")).to_be_visible()
    teacher.goto(f"/teach/classes/{assignment.classroom_id}/gradebook/")
    expect(teacher.locator(".grade-cell strong")).to_have_text(["100%", "50%"])
    teacher.context.close()
