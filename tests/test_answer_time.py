"""Reviews in true time order: a held-back quiz answer is rated at the time it was given, an
item whose earlier answer is released after later reviews is replayed in answer order, and
the dashboard's days (streak, heatmap) are the days the learner answered, on a fixed clock."""

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from fsrs import Card as FsrsCard
from fsrs import Rating as FsrsRating
from fsrs import Scheduler

from quiz.models import Attempt, MemoryState, ReviewLog, StudyDay, User
from quiz.progress.activity import daily_activity, streak
from quiz.study import scheduling
from quiz.study.answers import release_visible_answers
from quiz.study.catch_up import catch_up_learner, finish_and_release
from quiz.study.queue import Scope
from quiz.study.scheduling import undo_last
from tests.factories import make_question_set, make_user, start_attempt
from tests.helpers import answer_and_submit, answer_at, rate_item

PARIS, UTC = ZoneInfo("Europe/Paris"), ZoneInfo("UTC")
MONDAY = datetime(2026, 3, 9, 9, 0, tzinfo=timezone.utc)  # 10:00 in Paris; py-fsrs takes UTC only
Rating = ReviewLog.Rating


def deferred_attempt(user, questions=2):
    """A deferred-feedback attempt: nothing of it is rated before it is submitted."""
    return start_attempt(user, make_question_set(questions=questions), feedback=Attempt.Feedback.DEFERRED)


def slot_of(attempt, question):
    return attempt.slots.get(question=question)


def test_a_held_back_answer_is_logged_at_the_time_it_was_given(learner):
    attempt = deferred_attempt(learner)
    first, last = attempt.slots.order_by("position")

    answer_at(attempt, first, right=False, at=MONDAY)
    answer_and_submit(attempt, last, right=True, at=MONDAY + timedelta(days=2))

    log = ReviewLog.objects.get(memory__question=first.question)
    assert log.reviewed_at == MONDAY and log.released_at == MONDAY + timedelta(days=2)
    assert MemoryState.objects.get(question=first.question).last_review == MONDAY


def replayed_with_py_fsrs(plan):
    """The card py-fsrs gives for [(moment, rating), ...] in that order, and what each step did."""
    scheduler, card, steps = Scheduler(enable_fuzzing=False), FsrsCard(card_id=0, due=plan[0][0]), []
    for moment, rating in plan:
        card, _ = scheduler.review_card(card, FsrsRating(rating), moment)
        steps.append(card.due)
    return card, steps


@pytest.mark.parametrize("first_right", [False, True])
def test_an_answer_released_after_a_later_review_is_replayed_in_answer_order(learner, first_right):
    """Monday's held-back answer, released on Wednesday after a Tuesday review of the same
    question, ends as if both came in order: the same state as py-fsrs gives for Monday then
    Tuesday, the log rows' records agree, and the last result is Tuesday's."""
    attempt = deferred_attempt(learner)
    first, last = attempt.slots.order_by("position")
    question = first.question
    tuesday, wednesday = MONDAY + timedelta(days=1, hours=3), MONDAY + timedelta(days=2)
    tuesday_rating = Rating.AGAIN if first_right else Rating.GOOD

    answer_at(attempt, first, right=first_right, at=MONDAY)
    rate_item(learner, question, tuesday_rating, at=tuesday)
    answer_and_submit(attempt, last, right=True, at=wednesday)  # submits the attempt: Monday's answer is released

    monday_rating = Rating.GOOD if first_right else Rating.AGAIN
    card, dues = replayed_with_py_fsrs([(MONDAY, monday_rating), (tuesday, tuesday_rating)])
    memory = MemoryState.objects.get(user=learner, question=question)
    assert (memory.stability, memory.difficulty, memory.due, memory.phase, memory.step) == (
        card.stability, card.difficulty, card.due, int(card.state), card.step)
    assert (memory.reps, memory.last_review, memory.last_rating) == (2, tuesday, tuesday_rating)
    logs = list(memory.reviews.order_by("reviewed_at"))
    assert [(log.reviewed_at, log.rating, log.due_after, log.was_new) for log in logs] == [
        (MONDAY, monday_rating, dues[0], True), (tuesday, tuesday_rating, dues[1], False)]
    assert logs[0].state_before is None and logs[1].state_before["reps"] == 1
    assert logs[1].state_before["last_review"] == MONDAY.isoformat()


def test_a_replay_leaves_the_same_memory_and_log_as_answering_in_order(learner, other_learner):
    attempt = deferred_attempt(learner, questions=3)
    slots = list(attempt.slots.order_by("position"))
    moments = [MONDAY + timedelta(hours=n * 7) for n in range(6)]
    # Alice answers the attempt's first two on Monday, reviews both later, and finishes on Wednesday.
    answer_at(attempt, slots[0], right=False, at=moments[0])
    answer_at(attempt, slots[1], right=True, at=moments[1])
    rate_item(learner, slots[0].question, Rating.GOOD, at=moments[2])
    rate_item(learner, slots[1].question, Rating.AGAIN, at=moments[3])
    rate_item(learner, slots[0].question, Rating.HARD, at=moments[4])
    answer_and_submit(attempt, slots[2], right=True, at=moments[5])
    # Bob's ratings of the same questions at the same moments, each as it happened.
    for moment, question, rating in [
        (moments[0], slots[0].question, Rating.AGAIN), (moments[1], slots[1].question, Rating.GOOD),
        (moments[2], slots[0].question, Rating.GOOD), (moments[3], slots[1].question, Rating.AGAIN),
        (moments[4], slots[0].question, Rating.HARD), (moments[5], slots[2].question, Rating.GOOD),
    ]:
        rate_item(other_learner, question, rating, at=moment)

    def memories(user):
        rows = MemoryState.objects.filter(user=user).order_by("question_id")
        return [(memory.question_id, scheduling.snapshot(memory), memory.lapses) for memory in rows]

    def logs(user):
        fields = ("memory__question", "rating", "reviewed_at", "was_new", "retrievability", "due_after", "state_before")
        return list(ReviewLog.objects.filter(user=user).order_by("reviewed_at", "pk").values_list(*fields))

    assert memories(learner) == memories(other_learner)
    assert logs(learner) == logs(other_learner)


def test_undo_after_a_replay_restores_the_replayed_state_exactly(learner):
    """Tuesday's review, undone after Monday's answer was replayed under it, leaves exactly
    what Monday's answer alone gives: the replay rewrote the state Tuesday's row restores."""
    attempt = deferred_attempt(learner)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=MONDAY + timedelta(days=2))  # held until Wednesday
    attempt.refresh_from_db()
    first, last = attempt.slots.order_by("position")
    tuesday = MONDAY + timedelta(days=1)
    answer_at(attempt, first, right=False, at=MONDAY)
    answer_and_submit(attempt, last, right=True, at=MONDAY + timedelta(minutes=1))
    rate_item(learner, first.question, Rating.GOOD, at=tuesday)  # the latest rating: the one Undo takes back
    release_visible_answers(attempt.slots.all(), now=MONDAY + timedelta(days=2))

    undone = undo_last(user=learner, sources=(ReviewLog.Source.REVIEW,), scope=Scope(kinds=(MemoryState.Kind.QUESTION,)))

    card, _ = replayed_with_py_fsrs([(MONDAY, Rating.AGAIN)])
    memory = MemoryState.objects.get(user=learner, question=first.question)
    assert undone is not None and undone.reviewed_at == tuesday
    assert (memory.stability, memory.difficulty, memory.due, memory.reps, memory.last_rating) == (
        card.stability, card.difficulty, card.due, 1, Rating.AGAIN)


def test_retake_my_mistakes_follows_the_last_answer_given_not_the_last_released(learner):
    attempt = deferred_attempt(learner)
    first, last = attempt.slots.order_by("position")
    answer_at(attempt, first, right=False, at=MONDAY)
    rate_item(learner, first.question, Rating.GOOD, at=MONDAY + timedelta(days=1))

    answer_at(attempt, last, right=True, at=MONDAY + timedelta(days=2))

    assert not MemoryState.objects.filter(user=learner).last_answered_wrong().exists()


def test_a_late_release_recounts_the_day_it_was_answered(db):
    """Answered at 23:50, released just after midnight once the dashboard had counted the day
    before: the day is counted again, and the streak is unbroken."""
    learner = make_user("alice", time_zone="Europe/Paris")
    attempt = deferred_attempt(learner)
    first, last = attempt.slots.order_by("position")
    evening = datetime(2026, 3, 9, 23, 50, tzinfo=PARIS).astimezone(timezone.utc)
    after_midnight = evening + timedelta(minutes=20)
    answer_at(attempt, first, right=True, at=evening)
    daily_activity(user=learner, now=after_midnight)  # counts Monday, held answer not in the log yet
    assert StudyDay.objects.get(user=learner, day=date(2026, 3, 9)).reviews == 0

    answer_and_submit(attempt, last, right=True, at=after_midnight + timedelta(minutes=1))

    noon = datetime(2026, 3, 10, 12, 0, tzinfo=PARIS)
    days = daily_activity(user=learner, now=noon)
    assert (days[date(2026, 3, 9)].reviews, days[date(2026, 3, 10)].reviews) == (1, 1)
    assert streak(days, noon.date()) == 2


def test_an_assignment_answer_released_next_week_keeps_its_day_on_the_heatmap(learner):
    attempt = deferred_attempt(learner)
    first, last = attempt.slots.order_by("position")
    answer_at(attempt, first, right=True, at=MONDAY)
    answer_and_submit(attempt, last, right=True, at=MONDAY + timedelta(minutes=5))
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=MONDAY + timedelta(days=7))
    ReviewLog.objects.all().delete()
    attempt.slots.update(scheduled_at=None)

    catch_up_learner(learner, now=MONDAY + timedelta(days=8))

    days = daily_activity(user=learner, now=MONDAY + timedelta(days=8))
    assert days[MONDAY.date()].reviews == 2 and MONDAY.date() + timedelta(days=8) not in days


# --- Days that start away from midnight -----------------------------------------------------------

HAVANA = ZoneInfo("America/Havana")


@pytest.mark.parametrize(("now_utc", "start_utc"), [
    # 2025-03-09: clocks jump from 00:00 to 01:00, so the day starts at 01:00 CDT.
    (datetime(2025, 3, 9, 12, 0, tzinfo=ZoneInfo("UTC")), datetime(2025, 3, 9, 5, 0, tzinfo=ZoneInfo("UTC"))),
    # 2025-11-02: clocks go back from 01:00 to 00:00, so midnight comes twice; the day starts at the first.
    (datetime(2025, 11, 2, 5, 30, tzinfo=ZoneInfo("UTC")), datetime(2025, 11, 2, 4, 0, tzinfo=ZoneInfo("UTC"))),
    (datetime(2025, 11, 2, 4, 30, tzinfo=ZoneInfo("UTC")), datetime(2025, 11, 2, 4, 0, tzinfo=ZoneInfo("UTC"))),
    (datetime(2025, 11, 2, 3, 59, tzinfo=ZoneInfo("UTC")), datetime(2025, 11, 1, 4, 0, tzinfo=ZoneInfo("UTC"))),
])
def test_the_day_starts_at_its_first_instant_on_a_clock_change(now_utc, start_utc):
    assert User(time_zone="America/Havana").start_of_today(now_utc) == start_utc


def test_a_day_whose_midnight_repeats_keeps_its_reviews_of_the_second_midnight_hour(db):
    learner = make_user("alice", time_zone="America/Havana")
    question = make_question_set(questions=1).questions.get()
    utc = timezone.utc
    rate_item(learner, question, Rating.GOOD, at=datetime(2025, 11, 2, 3, 30, tzinfo=utc))  # Nov 1, 23:30 CDT
    rate_item(learner, question, Rating.GOOD, at=datetime(2025, 11, 2, 5, 30, tzinfo=utc))  # Nov 2, 00:30 CST

    days = daily_activity(user=learner, now=datetime(2025, 11, 3, 18, 0, tzinfo=utc))

    assert (days[date(2025, 11, 1)].reviews, days[date(2025, 11, 2)].reviews) == (1, 1)


@pytest.mark.parametrize("reviewed_since", [0, 2])
def test_a_release_replays_only_the_items_reviewed_since_in_two_more_queries(
    learner, reviewed_since, django_assert_num_queries
):
    attempt = deferred_attempt(learner, questions=5)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=MONDAY + timedelta(days=7))  # held until next week
    attempt.refresh_from_db()
    slots = list(attempt.slots.order_by("position"))
    for slot in slots:
        answer_at(attempt, slot, right=True, at=MONDAY)
    finish_and_release(attempt, now=MONDAY)  # submitted; held back until next week
    for slot in slots[:reviewed_since]:
        rate_item(learner, slot.question, Rating.AGAIN, at=MONDAY + timedelta(days=1))

    # Anything pending; a savepoint pair; the pending slots read and locked, claimed by one
    # UPDATE; the learner's row locked; the memories read and locked; INSERT of the new ones;
    # [UPDATE of the studied ones, the replayed items' log read, its rows' UPDATE]; INSERT of the
    # log rows; DELETE of the counted days from Monday on.
    replayed = 3 if reviewed_since else 0
    with django_assert_num_queries(1 + 2 + 2 + 1 + 1 + 1 + replayed + 1 + 1):
        assert release_visible_answers(attempt.slots.all(), now=MONDAY + timedelta(days=8)) == 5

    wrong_last = MemoryState.objects.filter(user=learner).last_answered_wrong()
    assert wrong_last.count() == reviewed_since and ReviewLog.objects.filter(user=learner).count() == 5 + reviewed_since
