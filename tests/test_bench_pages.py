"""The pages `make bench` sets the others against: the answer's floor writes what an answer
writes (so its ratio is a real ceiling for the answer's), and refuses what an answer refuses,
writing nothing then."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory

from quiz.models import MemoryState, ReviewLog
from quiz.views import health
from tests.class_factories import NOW
from tests.factories import make_question_set, start_attempt

# Committed for real: on PostgreSQL outside a transaction the floor is one statement, as an
# answer's writes are, and that statement must refuse as the transaction does.
pytestmark = pytest.mark.django_db(transaction=True)


def floor_post(user, attempt, position):
    request = RequestFactory().post(f"/bench/answer-floor/{attempt.pk}/{position}/")
    request.user = user
    return health.answer_floor(request, attempt.pk, position)


def test_the_floor_writes_an_answers_rows(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))

    assert health.write_answer_floor(attempt.pk, 1, learner.pk, NOW)

    slot = attempt.slots.get(position=1)
    assert slot.answered_at == NOW and slot.chosen_index == 1 and slot.is_correct is False
    attempt.refresh_from_db()
    assert attempt.last_answered_at == NOW
    memory = MemoryState.objects.get(user=learner, question=slot.question)
    assert (memory.reps, memory.last_rating) == (1, 1)
    log = ReviewLog.objects.get(user=learner)
    assert log.memory == memory and log.shown["chosen"] == 1 and log.state_before["reps"] == 1


def test_the_floor_rates_a_known_question_again_on_its_memory(learner):
    question_set = make_question_set(questions=1)
    health.write_answer_floor(start_attempt(learner, question_set).pk, 1, learner.pk, NOW)
    start_attempt(learner, question_set).finish(now=NOW)  # a second attempt of the same set
    again = start_attempt(learner, question_set)

    assert health.write_answer_floor(again.pk, 1, learner.pk, NOW)

    memory = MemoryState.objects.get(user=learner)
    assert (memory.reps, memory.lapses) == (2, 2)
    assert list(ReviewLog.objects.values_list("memory", flat=True)) == [memory.pk, memory.pk]


@pytest.mark.parametrize("refused", ["answered already", "no such position", "someone else's attempt", "finished"])
def test_the_floor_refuses_what_an_answer_refuses_and_writes_nothing(learner, other_learner, refused):
    attempt = start_attempt(learner, make_question_set(questions=2))
    position, who = 1, learner
    if refused == "answered already":
        health.write_answer_floor(attempt.pk, 1, learner.pk, NOW)
        attempt.refresh_from_db()
    elif refused == "no such position":
        position = 3
    elif refused == "someone else's attempt":
        who = other_learner
    else:
        attempt.finish(now=NOW)
    logs, last_answered = ReviewLog.objects.count(), attempt.last_answered_at

    response = floor_post(who, attempt, position)

    assert response.status_code == 400
    assert ReviewLog.objects.count() == logs
    attempt.refresh_from_db()
    assert attempt.last_answered_at == last_answered
    assert attempt.slots.filter(answered_at__isnull=False).count() == (1 if refused == "answered already" else 0)


def test_the_floor_answers_a_post_with_a_redirect_and_only_a_signed_in_post(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))

    assert floor_post(learner, attempt, 1)["Location"] == f"/bench/answer-floor/{attempt.pk}/1/"
    assert floor_post(AnonymousUser(), attempt, 2).status_code == 302  # to the sign-in page
    assert attempt.slots.get(position=2).answered_at is None
    get = RequestFactory().get(f"/bench/answer-floor/{attempt.pk}/2/")
    get.user = learner
    assert health.answer_floor(get, attempt.pk, 2).status_code == 405
