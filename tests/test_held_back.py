"""An assignment whose answers a learner may not see yet holds its pool's questions back from
that learner's practice, whoever owns them (the library's, a colleague's, the instructor's own):
practising them with feedback would give the answers away. The rest of a set stays open."""

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from quiz.models import Assignment, AssignmentOverride, Attempt, MockExam, Question, QuestionSet, Visibility
from quiz.progress.mastery import memory_summary
from quiz.study import scheduling
from quiz.study.mock_exam import Choices, start_mock_exam
from quiz.study.queue import Scope, next_entry
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_question_set, make_topic, make_user, start_attempt
from tests.helpers import question_url


@pytest.fixture
def people(db):
    teacher = make_instructor("teacher")
    other_teacher = make_instructor("other_teacher")
    student = make_user("student")
    stranger = make_user("stranger")  # in another instructor's class
    make_classroom(teacher, learners=[student])
    make_classroom(other_teacher, name="Elsewhere", learners=[stranger])
    return {"teacher": teacher, "other_teacher": other_teacher, "student": student, "stranger": stranger}


@pytest.fixture
def held_assignment(people):
    """The teacher's own set, shared with the class, and one question of a library set, in an
    assignment that shows answers after its due date (tomorrow)."""
    own = make_question_set("Teacher set", owner=people["teacher"], visibility=Visibility.CLASSES)
    library = make_question_set("Library set")
    pool = make_pool(people["teacher"], questions=[*own.questions.all(), library.questions.first()])
    now = timezone.now()
    assignment = make_assignment(
        people["teacher"].classrooms.get(), pool, opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1),
        feedback_timing=Assignment.FeedbackTiming.AFTER_DUE,
    )
    return {"own": own, "library": library, "assignment": assignment}


def messages_of(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_every_question_of_the_pool_is_held_back_whoever_owns_it_until_the_due_date(people, held_assignment):
    own, library = held_assignment["own"], held_assignment["library"]
    now = timezone.now()
    held = set(Question.objects.held_back_from(people["student"], now))

    assert held == {*own.questions.all(), library.questions.first()}
    assert not Question.objects.held_back_from(people["stranger"], now).exists()  # not in the class
    assert not Question.objects.held_back_from(people["student"], now + timedelta(days=2)).exists()  # after the due date
    AssignmentOverride.objects.create(
        assignment=held_assignment["assignment"], learner=people["student"], due_at=now + timedelta(days=3)
    )
    assert set(Question.objects.held_back_from(people["student"], now + timedelta(days=2))) == held  # an extension


def test_an_earlier_due_date_for_one_learner_releases_their_questions_earlier(people, held_assignment):
    now = timezone.now()
    AssignmentOverride.objects.create(
        assignment=held_assignment["assignment"], learner=people["student"], due_at=now + timedelta(hours=1)
    )
    assert Question.objects.held_back_from(people["student"], now).exists()
    assert not Question.objects.held_back_from(people["student"], now + timedelta(hours=2)).exists()


def test_practising_a_library_set_leaves_the_held_question_out_and_says_why_and_until_when(client, people, held_assignment):
    """The testers' case: a library set in the pool, practised with immediate feedback."""
    student, library = people["student"], held_assignment["library"]
    held_question = library.questions.first()
    client.force_login(student)

    response = client.post(reverse("start_attempt", args=[library.pk]), {"feedback": "immediate"})

    attempt = Attempt.objects.get(user=student, question_set=library)
    assert response.status_code == 302 and response.url == attempt.get_absolute_url()
    assert attempt.question_count == library.questions.count() - 1
    assert held_question.pk not in set(attempt.slots.values_list("question_id", flat=True))
    [message] = messages_of(response)
    assert message.startswith("1 question left out of this quiz") and "Week 1 quiz" in message
    for slot in attempt.slots.order_by("position"):  # no page of the quiz shows the held question
        assert held_question.stem not in client.get(question_url(attempt, slot.position)).content.decode()


def test_a_set_held_back_whole_starts_nothing_and_says_why_and_until_when(client, people, held_assignment):
    student, library = people["student"], make_question_set("Whole library set")
    pool = make_pool(people["teacher"], questions=library.questions.all(), title="Exam week")
    due = timezone.now() + timedelta(days=5)
    make_assignment(people["teacher"].classrooms.get(), pool, opens_at=timezone.now(), due_at=due,
                    feedback_timing=Assignment.FeedbackTiming.AFTER_DUE)
    client.force_login(student)

    response = client.post(reverse("start_attempt", args=[library.pk]), {"feedback": "immediate"})
    home = client.get(reverse("home")).content.decode()

    assert response.status_code == 302 and response.url == reverse("home")
    assert not Attempt.objects.filter(user=student, question_set=library).exists()
    [message] = messages_of(response)
    assert "Exam week" in message and "after its due date" in message and str(due.year) in message
    assert 'data-testid="practice-held"' in home  # the set's card says why instead of offering Start
    annotated = QuestionSet.objects.filter(pk=library.pk).with_progress_for(student).get()
    assert annotated.practice_held and annotated.held_until == due
    assert annotated.held_count == library.questions.count()


def test_an_assignment_showing_answers_after_an_attempt_holds_until_the_learner_finishes_one(people, held_assignment):
    from tests.class_factories import take

    library = make_question_set("Library for an after-attempt assignment")
    pool = make_pool(people["teacher"], questions=library.questions.all(), title="Practice check")
    now = timezone.now()
    assignment = make_assignment(people["teacher"].classrooms.get(), pool, opens_at=now - timedelta(days=1),
                                 due_at=now + timedelta(days=3), feedback_timing=Assignment.FeedbackTiming.AFTER_ATTEMPT)
    student = people["student"]
    held = Question.objects.held_back_from(student, now).filter(question_set=library)

    assert held.count() == library.questions.count()
    take(assignment, student, picks=[0, 0, 0], start=now - timedelta(hours=1))  # finished: its answers are shown
    assert not held.exists()


def test_immediate_feedback_assignments_hold_nothing_back(people):
    library = make_question_set("Open library")
    pool = make_pool(people["teacher"], questions=library.questions.all(), title="Open practice")
    make_assignment(people["teacher"].classrooms.get(), pool, opens_at=timezone.now(),
                    due_at=timezone.now() + timedelta(days=3), feedback_timing=Assignment.FeedbackTiming.IMMEDIATE)
    assert not Question.objects.held_back_from(people["student"], timezone.now()).exists()


def test_held_questions_cannot_be_practised_from_a_topic_the_review_queue_retakes_or_a_mock_exam(client, people, held_assignment):
    student, own, library = people["student"], held_assignment["own"], held_assignment["library"]
    held = [*own.questions.all(), library.questions.first()]
    topic = make_topic("Routing")
    for question in held:
        question.topics.add(topic)
        scheduling.rate(user=student, kind="question", item=question, rating=1, source="review",
                        now=timezone.now() - timedelta(days=30))  # due again, and last answered wrong
    client.force_login(student)

    client.post(reverse("topic_quiz", args=[topic.pk]))
    client.post(reverse("retake_mistakes"))
    mock, _ = start_mock_exam(user=student, choices=Choices(40, 60, 70), now=timezone.now())

    assert not Attempt.objects.filter(user=student).exclude(purpose=MockExam.PURPOSE).exists()
    drawn = set(mock.slots.values_list("question_id", flat=True))
    assert drawn and not drawn & {question.pk for question in held}
    scope = Scope(kinds=("question",), include_new=False)
    assert next_entry(user=student, scope=scope, now=timezone.now()) is None
    after_due = next_entry(user=student, scope=scope, now=timezone.now() + timedelta(days=2))
    assert after_due is not None and after_due.item in held


def test_the_homes_figures_leave_the_held_questions_out_until_the_due_date(client, people, held_assignment):
    # The home reads the held questions once, as a list, for its lists and every figure.
    student, own, library = people["student"], held_assignment["own"], held_assignment["library"]
    for question in own.questions.all():
        scheduling.rate(user=student, kind="question", item=question, rating=1, source="review",
                        now=timezone.now() - timedelta(days=30))
    held_ids = {*own.questions.values_list("pk", flat=True), library.questions.first().pk}
    assert set(Question.objects.held_back_ids(student, timezone.now())) == held_ids
    client.force_login(student)

    context = client.get(reverse("home")).context

    assert (context["due_count"], context["summary"].sets, context["summary"].topics) == (0, [], [])
    later = memory_summary(user=student, now=timezone.now() + timedelta(days=2))
    assert later.due_now == own.questions.count() and [m.key for m in later.sets] == [own.pk]


def test_the_assignment_page_tells_the_instructor_what_is_held_back(client, people, held_assignment):
    client.force_login(people["teacher"])
    page = client.get(reverse("assignment", args=[held_assignment["assignment"].pk])).content.decode()

    assert 'data-testid="held-from-practice"' in page and "yours or the library" in page


def test_held_questions_leave_an_instructor_learners_downloads(client, people, held_assignment):
    own = held_assignment["own"]
    colleague = people["other_teacher"]
    people["teacher"].classrooms.get().join(colleague)  # an instructor learning in a colleague's class
    client.force_login(colleague)
    own.visibility = Visibility.EVERYONE
    own.save()
    assert client.get(reverse("download_set", args=[own.pk, "gift"])).status_code == 404
    assert client.get(reverse("download_set", args=[held_assignment["library"].pk, "gift"])).status_code == 404
    assert client.get(reverse("download_set", args=[make_question_set("Untouched").pk, "gift"])).status_code == 200


def test_a_practice_quiz_begun_before_the_assignment_cannot_answer_a_held_question(client, people, held_assignment):
    student, library = people["student"], held_assignment["library"]
    begun_before = start_attempt(student, library)  # a practice attempt opened before the assignment
    held_slot = begun_before.slots.get(question=library.questions.first())
    client.force_login(student)

    answer = client.post(question_url(begun_before, held_slot.position), {"choice": "1"})

    assert answer.status_code == 403
    held_slot.refresh_from_db()
    assert held_slot.answered_at is None  # nothing recorded, no feedback shown


def test_an_archived_class_holds_nothing_back(people, held_assignment):
    classroom = people["teacher"].classrooms.get()
    now = timezone.now()
    assert Question.objects.held_back_from(people["student"], now).exists()

    classroom.archive()
    assert not Question.objects.held_back_from(people["student"], now).exists()
    classroom.restore()
    assert Question.objects.held_back_from(people["student"], now).exists()
