"""Archiving a class when its course is over: asked first, POST only, hidden from the
instructor's list and its learners', closed to joining, restorable, and nothing deleted."""

import pytest
from django.urls import reverse

from quiz.models import Attempt, Classroom, Enrollment
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool, take
from tests.factories import make_question_set, make_user
from tests.helpers import logged_in


@pytest.fixture
def course(teacher):
    ann = make_user("ann")
    classroom = make_classroom(teacher, name="Networking 101", learners=[ann])
    make_classroom(teacher, name="Security 201")
    pool = make_pool(teacher, make_question_set(questions=3).questions.all())
    assignment = make_assignment(classroom, pool, title="Week 1 quiz")
    return classroom, assignment, ann


def test_it_asks_before_archiving_and_archives_only_on_post(teacher_client, course):
    classroom, _, _ = course
    url = reverse("archive_classroom", args=[classroom.pk])

    page = teacher_client.get(url).content.decode()

    assert "Archive Networking 101?" in page and '<form method="post"' in page
    classroom.refresh_from_db()
    assert classroom.archived_at is None
    response = teacher_client.post(url)
    classroom.refresh_from_db()
    assert response.status_code == 302 and classroom.archived_at is not None


def test_an_archived_class_leaves_the_instructors_list_and_is_listed_apart(teacher_client, course):
    classroom, _, _ = course
    classroom.archive()

    page = teacher_client.get(reverse("teach_home")).content.decode()

    active, archived = page.split("Archived classes")
    assert "Networking 101" not in active and "Security 201" in active
    assert "Networking 101" in archived and reverse("restore_classroom", args=[classroom.pk]) in archived


def test_an_archived_class_and_its_assignments_leave_the_learners_list(course):
    classroom, assignment, ann = course
    client = logged_in(ann)
    assert "Week 1 quiz" in client.get(reverse("my_classes")).content.decode()

    classroom.archive()

    page = client.get(reverse("my_classes")).content.decode()
    assert "Networking 101" not in page and "Week 1 quiz" not in page
    assert client.get(reverse("learner_assignment", args=[assignment.pk])).status_code == 404


def test_joining_an_archived_class_is_refused_with_a_message(course):
    classroom, _, _ = course
    classroom.archive()
    bob = make_user("bob")

    response = logged_in(bob).post(reverse("join_class"), {"code": classroom.join_code})

    assert response.status_code == 400
    assert "Networking 101 is archived: it takes no new learners" in response.content.decode()
    assert not Enrollment.objects.filter(classroom=classroom, learner=bob).exists()


def test_archiving_keeps_learners_attempts_and_the_gradebook_and_restoring_brings_it_back(teacher_client, course):
    classroom, assignment, ann = course
    attempt = take(assignment, ann, (0, 1, 2))
    teacher_client.post(reverse("archive_classroom", args=[classroom.pk]))

    assert Enrollment.objects.filter(classroom=classroom, learner=ann).exists()
    assert Attempt.objects.filter(pk=attempt.pk).exists()
    assert "ann" in teacher_client.get(reverse("gradebook", args=[classroom.pk])).content.decode()
    assert "class-archived" in teacher_client.get(classroom.get_absolute_url()).content.decode()

    teacher_client.post(reverse("restore_classroom", args=[classroom.pk]))

    classroom.refresh_from_db()
    assert classroom.archived_at is None
    assert "Week 1 quiz" in logged_in(ann).get(reverse("my_classes")).content.decode()


def test_archiving_twice_keeps_the_first_date(course):
    classroom, _, _ = course
    assert classroom.archive() is True
    first = Classroom.objects.get(pk=classroom.pk).archived_at

    assert classroom.archive() is False
    assert Classroom.objects.get(pk=classroom.pk).archived_at == first


def test_another_instructor_cannot_archive_or_restore(course, client):
    classroom, _, _ = course

    client.force_login(make_instructor("mallory"))

    assert client.post(reverse("archive_classroom", args=[classroom.pk])).status_code == 404
    assert client.post(reverse("restore_classroom", args=[classroom.pk])).status_code == 404
    classroom.refresh_from_db()
    assert classroom.archived_at is None


def test_nothing_new_is_assigned_to_an_archived_class(teacher_client, course):
    classroom, assignment, _ = course
    classroom.archive()
    url = reverse("new_assignment", args=[classroom.pk])

    response = teacher_client.post(url, {"pool": assignment.pool_id, "opens_at": "2026-05-01T09:00",
                                         "due_at": "2026-05-08T09:00", "grading": "best", "feedback_timing": "immediate"})

    assert response.status_code == 302 and classroom.assignments.count() == 1
    assert "restore it before assigning" in teacher_client.get(classroom.get_absolute_url()).content.decode()
