"""Instructors managing their classes, assignments and pools: confirmation before anything
destructive, archive instead of delete when learners have history, and pages with a fixed
number of queries."""

import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.forms import AssignmentForm
from quiz.models import Assignment, Attempt, Enrollment, QuestionPool
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool, take
from tests.factories import make_question_set, make_user
from tests.helpers import AUTH, logged_in


@pytest.fixture
def course(teacher):
    ann = make_user("ann")
    classroom = make_classroom(teacher, learners=[ann])
    pool = make_pool(teacher, make_question_set(questions=3).questions.all())
    return classroom, make_assignment(classroom, pool), ann


def test_removing_a_learner_asks_first_and_removes_only_on_post(teacher_client, course):
    classroom, _, ann = course
    url = reverse("remove_learner", args=[classroom.pk, ann.pk])

    page = teacher_client.get(url).content.decode()

    assert "Remove ann from" in page and "<form method=\"post\"" in page
    assert Enrollment.objects.filter(classroom=classroom, learner=ann).exists()
    teacher_client.post(url)
    assert not Enrollment.objects.filter(classroom=classroom, learner=ann).exists()


def test_an_assignment_nobody_attempted_is_deleted(teacher_client, course):
    classroom, assignment, _ = course
    url = reverse("delete_assignment", args=[assignment.pk])

    assert "deleted for good" in teacher_client.get(url).content.decode()
    response = teacher_client.post(url)

    assert response.status_code == 302 and not Assignment.objects.filter(pk=assignment.pk).exists()


def test_an_attempted_assignment_is_archived_with_its_attempts_and_can_be_restored(teacher_client, course):
    classroom, assignment, ann = course
    attempt = take(assignment, ann, (0, 1, 2))
    url = reverse("delete_assignment", args=[assignment.pk])

    assert "archived, not deleted" in teacher_client.get(url).content.decode()
    teacher_client.post(url, follow=True)  # the class page, with its message read

    assignment.refresh_from_db()
    assert assignment.archived_at is not None and Attempt.objects.filter(pk=attempt.pk).exists()
    assert assignment.title not in teacher_client.get(reverse("gradebook", args=[classroom.pk])).content.decode()
    learner_client = logged_in(ann)
    assert assignment.title not in learner_client.get(reverse("my_classes")).content.decode()
    assert learner_client.get(reverse("learner_assignment", args=[assignment.pk])).status_code == 404

    teacher_client.post(reverse("restore_assignment", args=[assignment.pk]))
    assignment.refresh_from_db()
    assert assignment.archived_at is None


def test_a_pool_in_use_is_not_deleted_and_the_message_says_by_what(teacher_client, course):
    classroom, assignment, _ = course
    url = reverse("delete_pool", args=[assignment.pool_id])

    response = teacher_client.post(url, follow=True)

    assert QuestionPool.objects.filter(pk=assignment.pool_id).exists()
    assert f"assigned as “{assignment.title}” in {classroom.name}" in response.content.decode()


def test_an_unused_pool_is_deleted_after_confirmation(teacher_client, teacher):
    pool = make_pool(teacher, make_question_set(questions=2).questions.all(), title="Spare")
    url = reverse("delete_pool", args=[pool.pk])

    assert "Delete the question pool" in teacher_client.get(url).content.decode()
    teacher_client.post(url)

    assert not QuestionPool.objects.filter(pk=pool.pk).exists()


def test_a_class_is_renamed(teacher_client, course):
    classroom, _, _ = course

    teacher_client.post(reverse("rename_classroom", args=[classroom.pk]), {"name": "Routing 201"})

    classroom.refresh_from_db()
    assert classroom.name == "Routing 201"


def test_a_new_due_date_decides_lateness_at_once(teacher_client, course):
    _, assignment, ann = course
    late = take(assignment, ann, (0, 1, 2), start=assignment.due_at + timedelta(hours=1))
    assert late.is_late
    form = {
        "pool": assignment.pool_id, "title": assignment.title, "grading": "best", "feedback_timing": "immediate",
        "opens_at": (NOW - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
        "due_at": (NOW + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
    }

    response = teacher_client.post(reverse("edit_assignment", args=[assignment.pk]), form)

    assert response.status_code == 302
    late.refresh_from_db()
    assert not late.is_late


def test_the_preview_shows_the_learners_page_and_records_nothing(teacher_client, course):
    _, assignment, _ = course

    html = teacher_client.get(reverse("preview_assignment", args=[assignment.pk])).content.decode()

    assert 'data-testid="preview-note"' in html and 'data-testid="status"' in html
    assert all(q.stem in html for q in assignment.pool.questions_for_attempt())
    assert not Attempt.objects.exists()


def test_the_answer_key_marks_each_right_answer(teacher_client, course):
    _, assignment, _ = course

    html = teacher_client.get(reverse("pool_answer_key", args=[assignment.pool_id])).content.decode()

    assert html.count("Correct answer") == 3


@pytest.mark.parametrize("name, queries", [
    ("preview_assignment", 3),  # assignment with class and pool; the pool's questions; their choices
    ("pool_answer_key", 3),  # pool; entries with questions and sets; their choices
    ("edit_assignment", 2),  # assignment with class and pool; pools to pick from
    ("delete_assignment", 2),  # assignment with class and pool; does it have attempts
])
def test_new_pages_run_a_fixed_number_of_queries(teacher_client, teacher, name, queries, django_assert_num_queries):
    small = make_pool(teacher, make_question_set(questions=3).questions.all(), title="small")
    large = make_pool(teacher, make_question_set(questions=60).questions.all(), title="large")
    classroom = make_classroom(teacher, learners=[make_user(f"x{n}") for n in range(20)])
    targets = {pool: make_assignment(classroom, pool) for pool in (small, large)}

    def url(pool):
        return reverse(name, args=[pool.pk if name == "pool_answer_key" else targets[pool].pk])

    teacher_client.get(url(small))
    with django_assert_num_queries(AUTH + queries):
        assert teacher_client.get(url(large)).status_code == 200


# --- The new assignment form --------------------------------------------------------------------

def test_a_new_assignment_opens_now_and_is_due_in_a_week_on_the_instructors_clock(teacher_client, teacher):
    teacher.time_zone = "America/New_York"
    teacher.save()
    classroom = make_classroom(teacher)
    # A week that crosses the end of daylight saving time in New York (2 November 2025).
    now = datetime(2025, 10, 30, 16, 0, tzinfo=dt_timezone.utc)  # 12:00 in New York (EDT)

    page = teacher_client.get(reverse("new_assignment", args=[classroom.pk])).content.decode()

    with timezone.override(ZoneInfo("America/New_York")):  # as the middleware does for this instructor
        form = AssignmentForm(owner=teacher, initial=AssignmentForm.default_dates(now))
        assert form["opens_at"].value().strftime("%Y-%m-%d %H:%M") == "2025-10-30 12:00"
        assert form["due_at"].value().strftime("%Y-%m-%d %H:%M") == "2025-11-06 12:00"  # noon still, now EST
    assert re.search(r'name="opens_at" value="\d{4}-\d\d-\d\dT\d\d:\d\d"', page)
    assert 'data-testid="new-pool-link"' in page and reverse("new_pool") in page


def test_the_copy_and_select_all_controls_are_hidden_until_javascript_shows_them(teacher_client, course):
    classroom, assignment, _ = course
    make_question_set(questions=2)  # in the bank, not in the pool yet

    class_page = teacher_client.get(reverse("classroom", args=[classroom.pk])).content.decode()
    builder = teacher_client.get(reverse("pool", args=[assignment.pool_id])).content.decode()

    # Without JavaScript they could do nothing: the link stays selectable, each box tickable.
    assert re.search(r'<button type="button"[^>]*data-copy="#join-link" hidden>Copy link</button>', class_page)
    assert re.search(r'<label class="select-page" hidden><input type="checkbox" data-select-all=', builder)
