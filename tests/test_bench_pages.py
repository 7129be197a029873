"""The pages `make bench` sets the others against: the answer's floor writes what an answer
writes (so its ratio is a real ceiling for the answer's), and refuses what an answer refuses,
writing nothing then."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quiz.lib.answer_floor import write_answer_floor
from quiz.models import Attempt, AttemptSlot, MemoryState, ReviewLog
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

    with CaptureQueriesContext(connection) as queries:
        assert write_answer_floor(attempt.pk, 1, learner.pk, NOW)

    # On PostgreSQL one statement, its own transaction, as an answer's writes are; on SQLite the
    # four writes between BEGIN and COMMIT.
    assert len(queries) == (1 if connection.vendor == "postgresql" else 6)
    assert AttemptSlot.objects.filter(answered_at=NOW).count() == 1  # stored as Django stores a moment
    slot = attempt.slots.get(position=1)
    assert slot.answered_at == NOW and slot.chosen_index == 1 and slot.is_correct is False
    attempt.refresh_from_db()
    assert attempt.last_answered_at == NOW
    memory = MemoryState.objects.get(user=learner, question=slot.question)
    assert (memory.reps, memory.last_rating) == (1, 1)
    log = ReviewLog.objects.get(user=learner)
    assert log.memory == memory and log.reviewed_at == NOW and log.due_after == NOW + timedelta(minutes=10)
    assert log.shown["chosen"] == 1 and log.state_before["reps"] == 1


def test_the_floor_rates_a_known_question_again_on_its_memory(learner):
    question_set = make_question_set(questions=1)
    first = start_attempt(learner, question_set)
    write_answer_floor(first.pk, 1, learner.pk, NOW)
    first.finish(now=NOW)
    again = start_attempt(learner, question_set)  # a second attempt of the same set

    assert write_answer_floor(again.pk, 1, learner.pk, NOW)

    memory = MemoryState.objects.get(user=learner)
    assert (memory.reps, memory.lapses) == (2, 2)
    assert list(ReviewLog.objects.values_list("memory", flat=True)) == [memory.pk, memory.pk]


@pytest.mark.parametrize(
    "refused",
    ["answered already", "no such position", "a position no column holds", "someone else's attempt", "finished",
     "past its deadline"],
)
def test_the_floor_refuses_what_an_answer_refuses_and_writes_nothing(learner, other_learner, refused):
    attempt = start_attempt(learner, make_question_set(questions=2))
    position, who = 1, learner
    if refused == "answered already":
        write_answer_floor(attempt.pk, 1, learner.pk, NOW)
        attempt.refresh_from_db()
    elif refused == "no such position":
        position = 3
    elif refused == "a position no column holds":
        position = 2**70
    elif refused == "someone else's attempt":
        who = other_learner
    elif refused == "finished":
        attempt.finish(now=NOW)
    else:
        Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    logs, memories, last_answered = ReviewLog.objects.count(), MemoryState.objects.count(), attempt.last_answered_at

    response = floor_post(who, attempt, position)

    assert response.status_code == 400
    assert (ReviewLog.objects.count(), MemoryState.objects.count()) == (logs, memories)
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


def test_the_floor_takes_an_answer_up_to_its_deadline(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))
    Attempt.objects.filter(pk=attempt.pk).update(deadline=NOW)

    assert write_answer_floor(attempt.pk, 1, learner.pk, NOW)
    assert not write_answer_floor(attempt.pk, 2, learner.pk, NOW + timedelta(microseconds=1))


@pytest.mark.django_db  # inside the test's transaction: statement by statement, on PostgreSQL too
def test_the_floor_in_a_transaction_writes_and_refuses_alike(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))

    assert write_answer_floor(attempt.pk, 1, learner.pk, NOW)
    assert not write_answer_floor(attempt.pk, 1, learner.pk, NOW + timedelta(minutes=1))

    assert ReviewLog.objects.filter(user=learner).count() == 1
    attempt.refresh_from_db()
    assert attempt.last_answered_at == NOW  # the refused one's attempt write was undone
