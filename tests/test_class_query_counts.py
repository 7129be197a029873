"""Class and assignment pages run a fixed number of queries for a class of 5 or 500."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from quiz.models import Enrollment, User
from tests.class_factories import make_assignment, make_classroom, make_pool
from tests.factories import make_question_set
from tests.helpers import AUTH, count_queries, logged_in


def grown_class(teacher, size, learner=None):
    classroom = make_classroom(teacher, name=f"Class of {size}")
    learners = User.objects.bulk_create(User(username=f"c{size}_{n}") for n in range(size))
    Enrollment.objects.bulk_create(Enrollment(classroom=classroom, learner=u) for u in learners)
    if learner:
        classroom.join(learner)
    pool = make_pool(teacher, make_question_set(questions=size // 50 + 3).questions.all(), title=f"Set {size}")
    for n in range(3):
        make_assignment(classroom, pool, title=f"Week {n}")
    return classroom


@pytest.mark.parametrize("page, limit", [
    # classroom; learner count; page of learners; assignments; the class's LMS course (none here:
    # for one, its context, deployment and registration too, for the platform's name on the
    # "Sync roster" button: tests/test_lti_roster.py)
    ("classroom", 5),
    ("teach_home", 2),  # classes with learner counts; question pools with question counts
])
def test_instructor_pages(teacher_client, teacher, page, limit, django_assert_num_queries):
    small, large = grown_class(teacher, 5), grown_class(teacher, 500)
    args = (lambda c: [c.pk]) if page == "classroom" else (lambda c: [])

    assert count_queries(teacher_client, reverse(page, args=args(small)), ok=(200,)) == count_queries(teacher_client, reverse(page, args=args(large)), ok=(200,))
    with django_assert_num_queries(AUTH + limit):
        teacher_client.get(reverse(page, args=args(large)))


def test_the_pool_builder(teacher_client, teacher, django_assert_num_queries):
    small = make_pool(teacher, make_question_set(questions=3).questions.all(), title="small")
    large = make_pool(teacher, make_question_set(questions=200).questions.all(), title="large")

    assert count_queries(teacher_client, reverse("pool", args=[small.pk]), ok=(200,)) == count_queries(
        teacher_client, reverse("pool", args=[large.pk]), ok=(200,)
    )
    # question pool; entries with questions and sets; sets and topics for the filter; the bank's
    # count and its first page (shown on first load, no filter needed)
    with django_assert_num_queries(AUTH + 6):
        html = teacher_client.get(reverse("pool", args=[large.pk])).content.decode()
    assert "No questions match." not in html


def test_the_builder_shows_the_bank_on_first_load(teacher_client, teacher):
    pool = make_pool(teacher, [], title="empty")
    make_question_set(questions=3, title="Routing basics")

    html = teacher_client.get(reverse("pool", args=[pool.pk])).content.decode()

    assert "No questions match." not in html
    assert html.count('name="question"') == 3


def test_learner_class_pages(learner, teacher, django_assert_num_queries):
    client = logged_in(learner)
    small = grown_class(teacher, 5, learner)
    assignment = small.assignments.first()
    few = [count_queries(client, reverse("my_classes"), ok=(200,)), count_queries(client, reverse("learner_assignment", args=[assignment.pk]), ok=(200,))]
    large = grown_class(teacher, 500, learner)
    many = [count_queries(client, reverse("my_classes"), ok=(200,)), count_queries(client, reverse("learner_assignment", args=[large.assignments.first().pk]), ok=(200,))]

    assert few == many
    # anything to catch up (an expired attempt to close, answers to release: one query);
    # assignments; overrides; the learner's attempts on them (for each status); enrollments
    with django_assert_num_queries(AUTH + 5):
        client.get(reverse("my_classes"))
    # anything to catch up; the assignment; the learner's override; the learner's attempts on it
    url = reverse("learner_assignment", args=[large.assignments.first().pk])
    with django_assert_num_queries(AUTH + 4):
        client.get(url)


def test_the_new_pool_page(teacher_client, django_assert_num_queries):
    with django_assert_num_queries(AUTH):  # the form needs nothing from the database
        assert teacher_client.get(reverse("new_pool")).status_code == 200


@pytest.mark.parametrize("name, queries", [
    # classroom; any expired attempt to close; roster; assignments; overrides; attempts; the LMS
    # course's roster (quiz.lti.roster, read by build_gradebook though the CSV lists learners only)
    ("gradebook_csv", 7),
    # classroom; any expired attempt to close; the class's assignment ids; the answers, with
    # their attempt, learner and assignment, read in one chunk
    ("responses_csv", 4),
])
def test_the_class_csv_downloads(teacher_client, teacher, name, queries, django_assert_num_queries):
    small, large = grown_class(teacher, 5), grown_class(teacher, 500)

    def download(classroom):
        with CaptureQueriesContext(connection) as captured:
            response = teacher_client.get(reverse(name, args=[classroom.pk]))
            b"".join(response.streaming_content)  # the rows are read while streaming
        return len(captured)

    assert download(small) == download(large) == AUTH + queries
