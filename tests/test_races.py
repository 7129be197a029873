"""Races, run for real on PostgreSQL: many threads do the same thing at the same instant,
and each thing happens exactly once. (SQLite serialises writers, so these races cannot
happen there; tests/conftest.py collects this module only on PostgreSQL.)"""

import random
import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection
from django.urls import reverse
from django.utils import timezone

from quiz.content import import_documents
from quiz.models import (
    Assignment,
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    MemoryState,
    QuestionSet,
    ReviewLog,
    User,
)
from quiz.study import scheduling
from quiz.study.answers import submit_answer
from quiz.study.catch_up import catch_up_learner, finish_and_release
from quiz.teaching import rules
from tests.class_factories import make_assignment, make_classroom
from tests.factories import make_deck, make_question_set, make_topic, start_attempt
from tests.helpers import correct_number, logged_in, wrong_number
from tests.importing import DECK, QUIZ

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 8


def race(action, threads=THREADS):
    """Run action(i) in `threads` threads released at the same instant; return (results, errors)."""
    barrier = threading.Barrier(threads)
    results, errors = [None] * threads, []

    def run(index):
        try:
            barrier.wait(timeout=10)
            results[index] = action(index)
        except Exception as error:  # noqa: BLE001  (every failure is reported by the test)
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    workers = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    return results, errors


def test_the_same_answer_posted_at_once_is_recorded_once(learner):
    attempt = start_attempt(learner, make_question_set(questions=3))
    slot = attempt.slots.get(position=1)
    url = reverse("attempt_question", args=[attempt.pk, 1])

    results, errors = race(lambda i: logged_in(learner).post(url, {"choice": correct_number(slot)}).status_code)

    assert not errors and set(results) <= {302, 400}
    assert AttemptSlot.objects.filter(attempt=attempt, answered_at__isnull=False).count() == 1
    assert ReviewLog.objects.filter(user=learner).count() == 1


def test_a_flashcard_rated_from_several_tabs_at_once_is_rated_once(learner):
    card = make_deck(cards=1).cards.get()

    results, errors = race(lambda i: scheduling.rate(
        user=learner, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study", expected_reps=0
    ))

    assert not errors
    assert sum(result is not None for result in results) == 1
    assert ReviewLog.objects.count() == 1 and MemoryState.objects.get().reps == 1


def test_the_same_question_answered_at_once_in_two_attempts_is_rated_twice(learner):
    question_set = make_question_set(questions=1)
    attempts = [
        Attempt.objects.create_with_slots(user=learner, questions=question_set.questions.all(), feedback="immediate",
                                          rng=random, title=f"Attempt {n}")
        for n in range(THREADS)
    ]

    def answer(index):
        attempt = Attempt.objects.select_related("user").get(pk=attempts[index].pk)
        slot = attempt.slots.get()
        return submit_answer(attempt=attempt, slot=slot, number=wrong_number(slot))

    results, errors = race(answer)

    assert not errors and all(results)
    assert ReviewLog.objects.filter(user=learner).count() == THREADS  # every answer rated, none lost
    assert MemoryState.objects.get(user=learner).reps == THREADS


@pytest.mark.parametrize("what", ["set", "mistakes", "topic", "assignment"])
def test_starting_the_same_quiz_from_several_tabs_opens_one_attempt(learner, teacher, what):
    question_set = make_question_set(questions=2)
    if what == "mistakes":
        attempt = start_attempt(learner, question_set)
        slot = attempt.slots.get(position=1)
        submit_answer(attempt=attempt, slot=slot, number=wrong_number(slot))
        url = reverse("retake_mistakes")
    elif what == "topic":
        topic = make_topic("Networking")
        topic.questions.add(*question_set.questions.all())
        url = reverse("topic_quiz", args=[topic.pk])
    elif what == "assignment":
        assignment = make_assignment(make_classroom(teacher, learners=[learner]), opens_at=timezone.now() - timedelta(days=1),
                                     due_at=timezone.now() + timedelta(days=1))
        url = reverse("start_assignment", args=[assignment.pk])
    else:
        url = reverse("start_attempt", args=[question_set.pk])
    before = Attempt.objects.filter(user=learner, finished_at__isnull=True).count()

    results, errors = race(lambda i: logged_in(learner).post(url))

    assert not errors
    assert len({response["Location"] for response in results}) == 1  # every tab lands in the same attempt
    assert Attempt.objects.filter(user=learner, finished_at__isnull=True).count() == before + 1


def test_the_same_document_imported_at_once_is_imported_once(db):
    results, errors = race(lambda i: import_documents([QUIZ, DECK]), threads=4)

    assert not errors
    question_set = QuestionSet.objects.get()
    assert question_set.questions.count() == 7 and question_set.questions.values("key").distinct().count() == 7


def test_an_override_saved_at_once_from_several_tabs_is_one_row(learner, teacher):
    assignment = make_assignment(make_classroom(teacher, learners=[learner]))

    results, errors = race(lambda i: rules.save_override(
        assignment=Assignment.objects.get(pk=assignment.pk), learner=learner,
        rules={"time_limit": timedelta(minutes=10 + i)},
    ))

    assert not errors
    assert AssignmentOverride.objects.filter(assignment=assignment, learner=learner).count() == 1


def test_catching_up_from_several_requests_releases_each_answer_once(learner):
    attempt = start_attempt(learner, make_question_set(questions=4), feedback="deferred")
    for slot in attempt.slots.order_by("position")[:3]:
        attempt.record_answer(slot, correct_number(slot))
    attempt.finish()

    results, errors = race(lambda i: catch_up_learner(User.objects.get(pk=learner.pk)))

    assert not errors
    assert sum(released for _, released in results) == 3
    assert ReviewLog.objects.filter(user=learner).count() == 3


def test_last_answers_and_catch_ups_at_once_release_each_answer_once_in_order(learner):
    """Deferred attempts over the same questions are submitted at the same instant as catch-ups run:
    every answer is rated exactly once, each question's memory holds every rating."""
    questions = make_question_set(questions=3).questions.all()
    attempts = [
        Attempt.objects.create_with_slots(user=learner, questions=questions, feedback="deferred", rng=random,
                                          title=f"Attempt {n}")
        for n in range(THREADS // 2)
    ]
    for attempt in attempts:
        for slot in attempt.slots.order_by("position")[:2]:
            attempt.record_answer(slot, correct_number(slot))

    def act(index):
        if index % 2:
            return catch_up_learner(User.objects.get(pk=learner.pk))
        attempt = Attempt.objects.select_related("user").get(pk=attempts[index // 2].pk)
        slot = attempt.slots.select_related("question").get(position=3)
        recorded = submit_answer(attempt=attempt, slot=slot, number=wrong_number(slot))
        finish_and_release(attempt)  # "Submit all and finish" right after the last answer
        return recorded

    results, errors = race(act)

    assert not errors and all(results[0::2])
    assert ReviewLog.objects.filter(user=learner).count() == 3 * len(attempts)
    assert not AttemptSlot.objects.filter(attempt__user=learner, scheduled_at__isnull=True).exists()
    assert set(MemoryState.objects.filter(user=learner).values_list("reps", flat=True)) == {len(attempts)}


def _timed_attempt(learner, deadline):
    attempt = Attempt.objects.create_with_slots(user=learner, questions=make_question_set(questions=3).questions.all(),
                                                feedback="immediate", rng=random, title="Timed")
    Attempt.objects.filter(pk=attempt.pk).update(deadline=deadline)
    attempt.refresh_from_db()
    return attempt


def _in_thread(action):
    outcome = {}

    def run():
        try:
            outcome["result"] = action()
        except Exception as error:  # noqa: BLE001
            outcome["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_an_answer_recorded_while_the_attempt_closes_is_counted_or_refused_never_left_out(learner, monkeypatch):
    """Closing counts the slots while an answer given before the deadline is being saved: the
    score must include it, or the answer must be refused; it was stored and not counted."""
    now = timezone.now()
    attempt = _timed_attempt(learner, deadline=now)
    slot = attempt.slots.select_related("question", "attempt__user").get(position=1)
    counted, go = threading.Event(), threading.Event()
    count = AttemptSlot.objects.none().__class__.count

    def count_then_wait(queryset):
        result = count(queryset)
        if queryset.model is AttemptSlot and threading.current_thread() is not threading.main_thread():
            counted.set()
            go.wait(2)
        return result

    monkeypatch.setattr(type(AttemptSlot.objects.all()), "count", count_then_wait)
    closer, outcome = _in_thread(lambda: Attempt.objects.get(pk=attempt.pk).finish(now=now + timedelta(seconds=5)))
    counted.wait(2)
    submit_answer(attempt=slot.attempt, slot=slot, number=correct_number(slot), now=now - timedelta(seconds=1))
    go.set()
    closer.join()

    attempt.refresh_from_db()
    assert "error" not in outcome and attempt.is_finished
    assert attempt.correct_count == attempt.slots.filter(is_correct=True).count()


def test_closing_expired_attempts_counts_an_answer_committed_while_it_waited(learner, monkeypatch):
    now = timezone.now()
    attempt = _timed_attempt(learner, deadline=now)
    slot = attempt.slots.select_related("question", "attempt__user").get(position=1)
    inside, go = threading.Event(), threading.Event()
    from quiz.study import answers

    rate_answer = answers._rate_answer

    def rate_slowly(*args):
        rate_answer(*args)
        inside.set()  # the attempt row locked, the slot written and rated, not yet committed
        go.wait(2)

    monkeypatch.setattr(answers, "_rate_answer", rate_slowly)
    answering, answered = _in_thread(lambda: submit_answer(
        attempt=slot.attempt, slot=slot, number=correct_number(slot), now=now - timedelta(seconds=1)))
    inside.wait(2)
    closing, closed = _in_thread(lambda: Attempt.objects.close_expired(now + timedelta(seconds=5)))
    threading.Event().wait(0.5)  # the close is now waiting for the answer's lock
    go.set()
    answering.join()
    closing.join()

    attempt.refresh_from_db()
    assert answered.get("result") is True and "error" not in closed
    assert attempt.is_finished and attempt.correct_count == 1 == attempt.slots.filter(is_correct=True).count()
