"""A question set whose questions an instructor's pool holds is protected: deleting it is
refused, nothing at all is deleted, and the message says by what (the pool and each
assignment of it; other instructors' pools only counted, their titles being theirs)."""

import pytest
from django.urls import reverse

from quiz.models import Assignment, PoolQuestion, Question, QuestionPool, QuestionSet
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_question_set
from tests.helpers import logged_in


@pytest.fixture
def assigned_set(teacher):
    question_set = make_question_set("Routing", owner=teacher, questions=3)
    pool = make_pool(teacher, question_set.questions.all()[:2], title="Week 1 pool")
    make_assignment(make_classroom(teacher, name="Networking 101"), pool, title="Week 1 quiz")
    return question_set


def _counts():
    return [model.objects.count() for model in (QuestionSet, Question, QuestionPool, PoolQuestion, Assignment)]


def test_deleting_a_set_in_an_assigned_pool_is_refused_and_names_the_pool_and_assignment(teacher_client, assigned_set):
    before = _counts()

    response = teacher_client.post(reverse("delete_set", args=[assigned_set.pk]), follow=True)

    assert _counts() == before
    assert response.redirect_chain[-1][0] == reverse("edit_set", args=[assigned_set.pk])
    page = response.content.decode()
    assert "“Routing” was not deleted: its questions are in the question pool “Week 1 pool” " in page
    assert "(assigned as “Week 1 quiz” in Networking 101)" in page
    assert "learners have answered" not in page  # nobody has: the pool alone holds it


def test_the_confirmation_page_says_by_what_before_anything_is_posted(teacher_client, assigned_set):
    page = teacher_client.get(reverse("delete_set", args=[assigned_set.pk])).content.decode()

    assert "It cannot be deleted now: its questions are in the question pool “Week 1 pool”" in page
    assert "assigned as “Week 1 quiz” in Networking 101" in page


def test_a_pool_not_assigned_yet_is_named_too(teacher, teacher_client):
    question_set = make_question_set("Subnets", owner=teacher, questions=2)
    make_pool(teacher, question_set.questions.all(), title="Draft pool")

    response = teacher_client.post(reverse("delete_set", args=[question_set.pk]), follow=True)

    assert QuestionSet.objects.filter(pk=question_set.pk).exists()
    assert "its questions are in the question pool “Draft pool”;" in response.content.decode()


def test_another_instructors_pool_is_counted_not_named(teacher, assigned_set):
    assigned_set.visibility = "everyone"
    assigned_set.save(update_fields=["visibility"])
    other = make_instructor("olga")
    make_pool(other, assigned_set.questions.all()[2:], title="Olga's secret pool")
    make_pool(other, assigned_set.questions.all()[:1], title="Olga's other pool")

    page = logged_in(teacher).post(reverse("delete_set", args=[assigned_set.pk]), follow=True).content.decode()

    assert "2 question pools of other instructors" in page and "Olga's" not in page
    assert "“Week 1 pool”" in page


def test_a_set_nothing_holds_is_still_deleted(teacher, teacher_client):
    question_set = make_question_set("Unused", owner=teacher, questions=2)

    teacher_client.post(reverse("delete_set", args=[question_set.pk]))

    assert not QuestionSet.objects.filter(pk=question_set.pk).exists()
