"""Duplicating an assignment: the same pool and rules, new dates as a new assignment's, to the
same class or another of the instructor's own (active) classes; the original is untouched."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import Assignment
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool, take
from tests.factories import make_question_set, make_user


@pytest.fixture
def source(teacher):
    ann = make_user("ann")
    classroom = make_classroom(teacher, name="Networking 101", learners=[ann])
    pool = make_pool(teacher, make_question_set(questions=3).questions.all(), title="Week 1 pool")
    assignment = make_assignment(
        classroom, pool, title="Week 1 quiz", time_limit=timedelta(minutes=20), max_attempts=2,
        grading=Assignment.Grading.LAST, shuffle=False, feedback_timing=Assignment.FeedbackTiming.AFTER_DUE,
    )
    take(assignment, ann, (0, 1, 2))
    return assignment


def _fields(page):
    """The form's values as the browser would submit them unchanged."""
    values = dict(re.findall(r'<input[^>]*name="(\w+)"[^>]*value="([^"]*)"', page))
    values.update(re.findall(r'<select name="(\w+)"[^>]*>.*?<option value="([^"]*)"[^>]*selected', page, re.S))
    if re.search(r'<input[^>]*name="shuffle"[^>]*checked', page) is None:
        values.pop("shuffle", None)
    return values


def test_the_form_opens_with_the_pool_rules_and_class_and_new_dates(teacher_client, source):
    page = teacher_client.get(reverse("copy_assignment", args=[source.pk])).content.decode()
    fields = _fields(page)

    assert fields["classroom"] == str(source.classroom_id) and fields["pool"] == str(source.pool_id)
    assert fields["title"] == "Week 1 quiz" and fields["time_limit"] == "20" and fields["max_attempts"] == "2"
    assert fields["grading"] == "last" and fields["feedback_timing"] == "after_due" and "shuffle" not in fields
    opens = timezone.localtime().strftime("%Y-%m-%dT")
    assert fields["opens_at"].startswith(opens)  # today, not the original's opening date


def test_submitting_it_unchanged_makes_a_copy_due_in_a_week_and_leaves_the_original(teacher_client, source):
    url = reverse("copy_assignment", args=[source.pk])
    fields = _fields(teacher_client.get(url).content.decode())

    response = teacher_client.post(url, fields)

    copy = Assignment.objects.exclude(pk=source.pk).get()
    assert response.status_code == 302 and response.url == reverse("assignment", args=[copy.pk])
    assert (copy.classroom_id, copy.pool_id, copy.title) == (source.classroom_id, source.pool_id, source.title)
    assert (copy.time_limit, copy.max_attempts, copy.grading, copy.shuffle, copy.feedback_timing) == (
        source.time_limit, source.max_attempts, source.grading, source.shuffle, source.feedback_timing
    )
    assert copy.due_at - copy.opens_at == timedelta(days=7)
    assert abs(copy.opens_at - timezone.now()) < timedelta(minutes=2)
    assert not copy.attempts.exists() and source.attempts.count() == 1


def test_it_copies_to_another_of_the_instructors_classes(teacher_client, teacher, source):
    other = make_classroom(teacher, name="Security 201")
    url = reverse("copy_assignment", args=[source.pk])
    fields = {**_fields(teacher_client.get(url).content.decode()), "classroom": other.pk}

    teacher_client.post(url, fields)

    assert Assignment.objects.get(classroom=other).pool_id == source.pool_id


def test_it_refuses_a_class_that_is_not_the_instructors_or_is_archived(teacher_client, teacher, source):
    elsewhere = make_classroom(make_instructor("mallory"), name="Elsewhere")
    archived = make_classroom(teacher, name="Last year")
    archived.archive()
    url = reverse("copy_assignment", args=[source.pk])
    fields = _fields(teacher_client.get(url).content.decode())

    for classroom in (elsewhere, archived):
        response = teacher_client.post(url, {**fields, "classroom": classroom.pk})
        assert response.status_code == 400
    assert Assignment.objects.count() == 1


def test_another_instructor_cannot_copy_it(client, source):
    client.force_login(make_instructor("mallory"))

    assert client.get(reverse("copy_assignment", args=[source.pk])).status_code == 404
    assert client.post(reverse("copy_assignment", args=[source.pk]), {}).status_code == 404
