"""A quiz answer enters the spaced-repetition queue only once the learner may see its
feedback: at once, at the end of the attempt, or after the assignment's due date; and the
one catch-up path (pages and `manage.py catch_up`) closes expired attempts before it
releases, so nothing waits for a second visit."""

import csv
import io
import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from quiz.models import Attempt, AttemptSlot, MemoryState, ReviewLog
from quiz.study.answers import submit_answer
from quiz.study.catch_up import catch_up_learner
from quiz.teaching import rules
from tests.class_factories import NOW, make_assignment, make_classroom
from tests.factories import make_question_set, start_attempt
from tests.helpers import answer_at, correct_number, rate_item, wrong_number


def test_immediate_feedback_schedules_each_answer_at_once(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))

    answer_at(attempt, 1, right=False, at=NOW)

    assert ReviewLog.objects.filter(user=learner, source="quiz").count() == 1


def test_deferred_feedback_schedules_nothing_until_the_attempt_ends(learner, learner_client):
    attempt = start_attempt(learner, make_question_set(questions=2), feedback=Attempt.Feedback.DEFERRED)

    answer_at(attempt, 1, right=False, at=NOW)

    assert not ReviewLog.objects.exists()
    home = learner_client.get(reverse("home")).content.decode()
    assert "Retake my mistakes" not in home
    rows = list(csv.DictReader(io.StringIO(
        b"".join(learner_client.get(reverse("download_history")).streaming_content).decode()
    )))
    # The answer is in the download, but whether it was right is not (a check that could not
    # pass on an empty file).
    assert [(row["record"], row["correct"]) for row in rows] == [("answer", "hidden")]

    answer_at(attempt, 2, right=True, at=NOW)
    assert not ReviewLog.objects.exists()  # every question answered, but not submitted yet
    learner_client.post(reverse("attempt_submit", args=[attempt.pk]))

    ratings = sorted(ReviewLog.objects.filter(user=learner).values_list("rating", flat=True))
    assert ratings == [ReviewLog.Rating.AGAIN, ReviewLog.Rating.GOOD]


def test_answers_held_until_the_due_date_are_scheduled_after_it_once(learner, teacher):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom, feedback_timing="after_due")
    seen = rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=NOW)
    attempt = rules.start_attempt(user=learner, seen=seen, now=NOW)
    for position in (1, 2, 3):
        answer_at(attempt, position, right=position != 2, at=NOW)
    assert not ReviewLog.objects.exists()

    catch_up_learner(learner, now=assignment.due_at - timedelta(minutes=1))
    assert not ReviewLog.objects.exists()
    catch_up_learner(learner, now=assignment.due_at + timedelta(minutes=1))
    catch_up_learner(learner, now=assignment.due_at + timedelta(minutes=2))

    assert ReviewLog.objects.filter(user=learner, source="quiz").count() == 3
    assert ReviewLog.objects.filter(rating=ReviewLog.Rating.AGAIN).count() == 1


def test_a_timed_out_attempt_is_scheduled_when_closed(learner, teacher):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=5), feedback_timing="after_attempt")
    seen = rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=NOW)
    attempt = rules.start_attempt(user=learner, seen=seen, now=NOW)
    answer_at(attempt, 1, right=True, at=NOW + timedelta(minutes=1))

    closed, released = catch_up_learner(learner, now=NOW + timedelta(hours=1))

    # One call: the attempt closed by its deadline releases its answer at once.
    assert (closed, released) == (1, 1)
    assert ReviewLog.objects.filter(user=learner).count() == 1
    attempt.refresh_from_db()
    assert attempt.finished_at == NOW + timedelta(minutes=5)


def test_the_catch_up_command_closes_and_releases_for_every_learner(learner, other_learner, teacher):
    classroom = make_classroom(teacher, learners=[learner, other_learner])
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=5), feedback_timing="after_attempt")
    for user in (learner, other_learner):
        seen = rules.get_learner_assignment(user=user, assignment_id=assignment.pk, now=NOW)
        answer_at(rules.start_attempt(user=user, seen=seen, now=NOW), 1, right=True, at=NOW + timedelta(minutes=1))
    out = StringIO()

    call_command("catch_up", "--dry-run", stdout=out)
    assert "Would close 2 expired attempt(s)" in out.getvalue()
    assert Attempt.objects.filter(finished_at__isnull=True).count() == 2  # a dry run writes nothing

    call_command("catch_up", stdout=out)

    assert "Closed 2 expired attempt(s); released 2 answer(s)" in out.getvalue()
    assert not Attempt.objects.filter(finished_at__isnull=True).exists()
    assert sorted(ReviewLog.objects.values_list("user__username", flat=True)) == ["alice", "bob"]
    call_command("catch_up", stdout=out)  # nothing left: running it again changes nothing
    assert ReviewLog.objects.count() == 2


def test_a_question_pending_in_two_attempts_is_rated_in_answer_order(learner):
    question_set = make_question_set(questions=1)
    earlier, later = (
        Attempt.objects.create_with_slots(user=learner, questions=question_set.questions.all(), feedback="deferred",
                                          rng=random, title=f"Attempt {n}")
        for n in (1, 2)
    )
    # The attempt started later is answered first (wrong), the earlier one an hour after (right);
    # each attempt is submitted as it is answered, and neither is released before the catch-up.
    later.record_answer(slot := later.slots.get(), wrong_number(slot), now=NOW)
    later.finish(now=NOW)
    earlier.record_answer(slot := earlier.slots.get(), correct_number(slot), now=NOW + timedelta(hours=1))
    earlier.finish(now=NOW + timedelta(hours=1))

    assert catch_up_learner(learner, now=NOW + timedelta(hours=2)) == (0, 2)

    first, second = ReviewLog.objects.filter(user=learner).order_by("pk")
    assert (first.rating, first.was_new, first.state_before) == (ReviewLog.Rating.AGAIN, True, None)
    assert (second.rating, second.was_new, second.state_before["last_rating"]) == (ReviewLog.Rating.GOOD, False, 1)
    memory = MemoryState.objects.get(user=learner)
    assert (memory.reps, memory.last_rating) == (2, ReviewLog.Rating.GOOD)


@pytest.mark.parametrize("questions", [2, 1], ids=["an-answer", "the-last-answer"])
@pytest.mark.parametrize("studied_before", [False, True])
def test_an_answer_is_rated_on_the_memory_as_it_is_when_the_answer_is_recorded(learner, studied_before, questions):
    """The slot was read before a review session rated the question: the answer's rating builds on
    that review (the memory is read, locked, in the answer's transaction), and the last answer's
    finish and score count it once."""
    attempt = start_attempt(learner, make_question_set(questions=questions))
    slot = attempt.slots.select_related("question").get(position=1)
    if studied_before:
        rate_item(learner, slot.question, ReviewLog.Rating.GOOD, at=NOW - timedelta(days=1))
    rate_item(learner, slot.question, ReviewLog.Rating.GOOD, at=NOW)  # after the page read the slot

    assert submit_answer(attempt=attempt, slot=slot, number=wrong_number(slot), now=NOW)

    assert MemoryState.objects.get(user=learner).reps == 2 + studied_before
    assert list(ReviewLog.objects.order_by("pk").values_list("rating", flat=True))[-2:] == [3, 1]
    assert AttemptSlot.objects.filter(attempt=attempt, answered_at__isnull=False).count() == 1
    attempt.refresh_from_db()
    assert (attempt.is_finished, attempt.correct_count) == (questions == 1, 0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("studied_before", [False, True])
def test_with_real_commits_a_second_submit_is_a_refused_update_that_changes_nothing(learner, studied_before):
    """No test transaction around it, as in a request: the same question sent again from a second
    tab, which read it unanswered, finds the slot answered. Nothing changes, and the database
    reports no error (a double click is a refused update, not a failed statement)."""
    attempt = start_attempt(learner, make_question_set(questions=2))
    read_twice = [AttemptSlot.objects.select_related("question").get(attempt=attempt, position=1) for _ in range(2)]
    if studied_before:
        rate_item(learner, read_twice[0].question, ReviewLog.Rating.GOOD, at=NOW - timedelta(days=1))

    assert submit_answer(attempt=attempt, slot=read_twice[0], number=wrong_number(read_twice[0]), now=NOW)
    again = Attempt.objects.get(pk=attempt.pk)
    later = NOW + timedelta(minutes=1)
    assert not submit_answer(attempt=again, slot=read_twice[1], number=correct_number(read_twice[1]), now=later)
    assert not connection.errors_occurred

    attempt.refresh_from_db()
    assert (attempt.last_answered_at, attempt.is_finished) == (NOW, False)
    assert list(ReviewLog.objects.order_by("pk").values_list("rating", flat=True)) == [3] * studied_before + [1]
    memory = MemoryState.objects.get(user=learner)
    assert (memory.reps, memory.last_rating) == (1 + studied_before, ReviewLog.Rating.AGAIN)
    answered = AttemptSlot.objects.get(pk=read_twice[0].pk)
    assert (answered.is_correct, answered.answered_at) == (False, NOW)


def test_an_answer_rates_the_learners_own_memory_of_the_question(learner, learner_client, other_learner):
    attempt = start_attempt(learner, make_question_set(questions=2))
    slot = attempt.slots.select_related("question").get(position=1)
    rate_item(other_learner, slot.question, ReviewLog.Rating.GOOD, at=NOW)  # read with the slot: must not be used

    learner_client.post(reverse("attempt_question", args=[attempt.pk, 1]), {"choice": wrong_number(slot)})

    mine, theirs = (MemoryState.objects.get(user=user, question=slot.question) for user in (learner, other_learner))
    assert (mine.reps, mine.last_rating, theirs.reps, theirs.last_rating) == (1, 1, 1, 3)


def test_the_pending_answers_have_a_partial_index(db):
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, AttemptSlot._meta.db_table)
    assert constraints["slot_pending_release"]["columns"] == ["attempt_id"]
