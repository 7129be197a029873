"""A late release that replays a question's log, at the same instant as new reviews of that
question: whatever the interleaving, every rating that was accepted is in the log once, and the
memory is exactly the replay of that log in answer order. PostgreSQL only (see conftest)."""

import copy
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from quiz.models import Attempt, MemoryState, User
from quiz.study import bulk, scheduling
from quiz.study.answers import submit_answer
from quiz.study.catch_up import finish_and_release
from tests.factories import make_question_set
from tests.helpers import correct_number, wrong_number
from tests.test_races import THREADS, race

pytestmark = pytest.mark.django_db(transaction=True)


def test_late_releases_and_new_reviews_at_once_leave_the_replay_of_the_log(learner):
    question_set = make_question_set(questions=2)
    question = question_set.questions.order_by("position").first()
    now = timezone.now()
    attempts = []
    for n in range(THREADS // 2):
        attempt = Attempt.objects.create_with_slots(user=learner, questions=question_set.questions.all(),
                                                    feedback="deferred", rng=random, title=f"Attempt {n}")
        slot = attempt.slots.get(question=question)
        attempt.record_answer(slot, wrong_number(slot), now=now - timedelta(days=5, hours=n))  # held back
        attempts.append(attempt)
    scheduling.rate(user=learner, kind=MemoryState.Kind.QUESTION, item=question, rating=3, source="review",
                    now=now - timedelta(days=1))  # a later review: every release above comes in late

    def act(index):
        if index % 2:
            return scheduling.rate(user=User.objects.get(pk=learner.pk), kind=MemoryState.Kind.QUESTION,
                                   item=question, rating=3, source="review")
        attempt = Attempt.objects.select_related("user").get(pk=attempts[index // 2].pk)
        slot = attempt.slots.select_related("question").exclude(question=question).get()
        recorded = submit_answer(attempt=attempt, slot=slot, number=correct_number(slot))
        finish_and_release(attempt)  # "Submit all and finish": releases both answers
        return recorded

    results, errors = race(act)

    assert not errors and all(results[0::2])  # every release happened (reviews may be refused as stale)
    memory = MemoryState.objects.get(user=learner, question=question)
    logs = list(memory.reviews.order_by("reviewed_at", "pk"))
    accepted_reviews = sum(result is not None for result in results[1::2])
    assert len(logs) == 1 + len(attempts) + accepted_reviews == memory.reps
    replayed = copy.copy(memory)
    bulk.replay(replayed, [copy.copy(log) for log in logs], scheduling.scheduler_for(learner))
    assert scheduling.snapshot(replayed) == scheduling.snapshot(memory)
    assert [log.due_after for log in logs][-1] == memory.due
    assert memory.reviews.filter(released_at__isnull=False).count() == len(attempts)
