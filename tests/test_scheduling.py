"""FSRS scheduling, the study queue and undo, on a fixed clock."""

from datetime import datetime, timedelta, timezone

import pytest
from django.db import transaction

from quiz.lib import durations
from quiz.models import Card, Deck, MemoryState, ReviewLog
from quiz.study import answers, bulk, queue, scheduling
from quiz.study.queue import Scope, next_entry
from quiz.study.scheduling import undo_last
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import correct_number, rate_item, wrong_number

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)
Kind = MemoryState.Kind
Rating = ReviewLog.Rating
STUDY = ReviewLog.Source.STUDY


def undo_study(user):
    return undo_last(user=user, sources=(STUDY,), scope=Scope(kinds=(Kind.CARD,)))


def memory_of(user, card, kind=Kind.CARD):
    return MemoryState.objects.get(user=user, kind=kind, card=card)


def test_good_on_a_new_card_moves_due_into_the_future_and_again_keeps_it_within_minutes(learner):
    good_card, again_card = make_deck(cards=2).cards.all()

    rate_item(learner, good_card, Rating.GOOD, at=NOW)
    rate_item(learner, again_card, Rating.AGAIN, at=NOW)

    assert memory_of(learner, good_card).due > NOW
    assert NOW < memory_of(learner, again_card).due <= NOW + timedelta(minutes=10)


def test_good_twice_graduates_the_card_to_days(learner):
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW)
    later = memory_of(learner, card).due

    rate_item(learner, card, Rating.GOOD, at=later)

    memory = memory_of(learner, card)
    assert memory.phase == MemoryState.Phase.REVIEW
    assert memory.due >= later + timedelta(days=1)
    assert memory.reps == 2


def test_again_on_a_review_card_counts_a_lapse_and_comes_back_within_minutes(learner):
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, Rating.EASY, at=NOW)
    review_due = memory_of(learner, card).due

    rate_item(learner, card, Rating.AGAIN, at=review_due)

    memory = memory_of(learner, card)
    assert memory.lapses == 1
    assert memory.phase == MemoryState.Phase.RELEARNING
    assert memory.due <= review_due + timedelta(minutes=10)


def test_each_rating_writes_one_log_row_with_its_details(learner):
    card = make_deck(cards=1).cards.get()

    review = rate_item(learner, card, Rating.HARD, at=NOW, duration_ms=4200)

    assert ReviewLog.objects.count() == 1
    assert (review.rating, review.reviewed_at, review.duration_ms, review.was_new) == (2, NOW, 4200, True)
    assert review.due_after == memory_of(learner, card).due
    assert review.retrievability is None  # nothing to recall the first time


def test_a_stale_rating_is_refused_and_writes_nothing(learner):
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW, expected_reps=0)

    repeat = rate_item(learner, card, Rating.GOOD, at=NOW, expected_reps=0)

    assert repeat is None
    assert ReviewLog.objects.count() == 1
    assert memory_of(learner, card).reps == 1


def test_button_labels_show_the_next_interval():
    labels = {r: durations.short_interval(d) for r, d in scheduling.next_intervals(None, NOW).items()}

    assert labels[Rating.AGAIN] == "1m"
    assert labels[Rating.GOOD] == "10m"
    assert labels[Rating.EASY].endswith("d")


@pytest.mark.parametrize(
    "delta, label",
    [(timedelta(seconds=30), "1m"), (timedelta(hours=3), "3h"), (timedelta(days=2), "2d"), (timedelta(days=400), "1.1y")],
)
def test_short_interval(delta, label):
    assert durations.short_interval(delta) == label


# --- Undo ---------------------------------------------------------------------------------

def test_undo_restores_the_previous_state_exactly_and_removes_the_log_row(learner):
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW)
    before = scheduling.snapshot(memory_of(learner, card))

    rate_item(learner, card, Rating.AGAIN, at=NOW + timedelta(minutes=11))
    undone = undo_study(learner)

    assert undone.rating == Rating.AGAIN
    assert scheduling.snapshot(memory_of(learner, card)) == before
    assert ReviewLog.objects.count() == 1


def test_undoing_the_first_rating_makes_the_card_new_again(learner):
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW)

    undo_study(learner)

    assert not MemoryState.objects.exists()
    assert not ReviewLog.objects.exists()


def test_undo_with_nothing_to_undo_changes_nothing(learner, other_learner):
    card = make_deck(cards=1).cards.get()
    rate_item(other_learner, card, Rating.GOOD, at=NOW)

    assert undo_study(learner) is None
    assert ReviewLog.objects.count() == 1


# --- The queue --------------------------------------------------------------------------------

def graduate(user, card, rating=Rating.EASY, when=NOW - timedelta(days=60)):
    rate_item(user, card, rating, at=when)


def test_the_queue_gives_due_reviews_least_recalled_first_then_new_then_learning(learner):
    learner.new_cards_per_day = 2
    learner.save()
    deck = make_deck(cards=5)
    strong, weak, learning, first_new, second_new = deck.cards.order_by("position")
    graduate(learner, strong, when=NOW - timedelta(days=20))
    graduate(learner, weak, when=NOW - timedelta(days=40))
    rate_item(learner, learning, Rating.AGAIN, at=NOW - timedelta(minutes=30))  # today's first new card
    scope = Scope(kinds=(Kind.CARD,), deck=deck)

    order = []
    for _ in range(4):
        entry = next_entry(user=learner, scope=scope, now=NOW)
        order.append(entry.item)
        rate_item(learner, entry.item, Rating.EASY, at=NOW)

    assert order == [weak, strong, first_new, learning]  # second_new waits: the daily limit is 2
    assert next_entry(user=learner, scope=scope, now=NOW) is None


def test_due_reviews_are_ordered_by_predicted_recall_not_by_due_date(learner):
    deck = make_deck(cards=2)
    short, long = deck.cards.order_by("position")
    graduate(learner, short, rating=Rating.GOOD, when=NOW - timedelta(days=30))
    graduate(learner, long, rating=Rating.EASY, when=NOW - timedelta(days=30))
    MemoryState.objects.update(phase=MemoryState.Phase.REVIEW, due=NOW - timedelta(days=1))
    recall = {c: scheduling.retrievability(memory_of(learner, c), NOW) for c in (short, long)}

    entry = next_entry(user=learner, scope=Scope(kinds=(Kind.CARD,), deck=deck, include_new=False), now=NOW)

    assert entry.item == min(recall, key=recall.get)


def test_new_cards_stop_at_the_daily_limit(learner):
    learner.new_cards_per_day = 2
    learner.save()
    deck = make_deck(cards=3)
    scope = Scope(kinds=(Kind.CARD,), deck=deck)
    for _ in range(2):
        rate_item(learner, next_entry(user=learner, scope=scope, now=NOW).item, Rating.EASY, at=NOW)

    assert next_entry(user=learner, scope=scope, now=NOW) is None
    status = queue.queue_status(user=learner, scope=scope, now=NOW)
    assert status.new_limit_reached
    assert status.next_due > NOW


def test_the_daily_limit_resets_at_midnight_in_the_learners_time_zone(learner):
    learner.time_zone = "Asia/Tokyo"  # UTC+9: local midnight is 15:00 UTC
    learner.new_cards_per_day = 1
    learner.save()
    deck = make_deck(cards=3)
    scope = Scope(kinds=(Kind.CARD,), deck=deck)
    late_evening = datetime(2026, 3, 10, 14, 30, tzinfo=timezone.utc)  # 23:30 in Tokyo
    rate_item(learner, deck.cards.get(position=1), Rating.EASY, at=late_evening)

    assert next_entry(user=learner, scope=scope, now=late_evening + timedelta(minutes=20)) is None  # 23:50
    after_midnight = next_entry(user=learner, scope=scope, now=late_evening + timedelta(minutes=40))  # 00:10
    assert after_midnight.item == deck.cards.get(position=2)


def test_utc_midnight_does_not_reset_the_limit_for_a_learner_elsewhere(learner):
    learner.time_zone = "America/Los_Angeles"  # UTC-8 in March before DST: 16:00 local at UTC midnight
    learner.new_cards_per_day = 1
    learner.save()
    deck = make_deck(cards=2)
    scope = Scope(kinds=(Kind.CARD,), deck=deck)
    rate_item(learner, deck.cards.get(position=1), Rating.EASY, at=datetime(2026, 3, 6, 23, 0, tzinfo=timezone.utc))

    assert next_entry(user=learner, scope=scope, now=datetime(2026, 3, 7, 1, 0, tzinfo=timezone.utc)) is None


def test_one_learners_study_does_not_touch_anothers_queue(learner, other_learner):
    deck = make_deck(cards=1)
    rate_item(other_learner, deck.cards.get(), Rating.EASY, at=NOW)

    entry = next_entry(user=learner, scope=Scope(kinds=(Kind.CARD,), deck=deck), now=NOW)

    assert entry.memory is None  # still new for this learner


# --- Quiz questions in the same queue -------------------------------------------------------

def test_a_question_answered_wrong_in_a_quiz_comes_back_as_due(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))
    wrong_slot, right_slot = attempt.slots.order_by("position")
    answers.submit_answer(attempt=attempt, slot=wrong_slot, number=wrong_number(wrong_slot), now=NOW)
    answers.submit_answer(attempt=attempt, slot=right_slot, number=correct_number(right_slot), now=NOW)
    review_scope = Scope(kinds=(Kind.CARD, Kind.QUESTION), include_new=False)

    assert next_entry(user=learner, scope=review_scope, now=NOW) is None
    entry = next_entry(user=learner, scope=review_scope, now=NOW + timedelta(minutes=5))
    assert entry.kind == Kind.QUESTION
    assert entry.item == wrong_slot.question


def test_a_repeated_quiz_answer_schedules_once(learner):
    attempt = start_attempt(learner, make_question_set(questions=2))
    slot = attempt.slots.get(position=1)

    answers.submit_answer(attempt=attempt, slot=slot, number=correct_number(slot), now=NOW)
    answers.submit_answer(attempt=attempt, slot=slot, number=correct_number(slot), now=NOW)

    assert ReviewLog.objects.filter(source=ReviewLog.Source.QUIZ).count() == 1
    assert MemoryState.objects.get(kind=Kind.QUESTION).reps == 1


def test_recall_in_sql_at_the_very_moment_of_the_review_is_one(learner):
    """A review stamped at `now` itself must not round to minus one day (a negative base to a
    fractional power is an error on PostgreSQL)."""
    cards = list(make_deck(cards=40).cards.all())
    # Real clocks have fractions of a day that floats cannot hold exactly: try many.
    moments = [NOW + timedelta(seconds=n * 3917, microseconds=n * 104729 % 10**6) for n in range(len(cards))]
    for card, moment in zip(cards, moments):
        rate_item(learner, card, Rating.AGAIN, at=moment)  # learning: a small stability

    for card, moment in zip(cards, moments):
        expression = scheduling.recall_expression(moment)
        assert MemoryState.objects.annotate(r=expression).get(card=card).r == pytest.approx(1.0)


def test_rating_in_bulk_gives_exactly_what_rating_one_by_one_gives(learner, other_learner):
    """The quiz release rates in bulk, the review session one at a time: the same ratings in the
    same order must leave the same memory and the same log, including an item rated twice."""
    first, second, third = make_question_set(questions=3).questions.all()
    plan = [(first, Rating.GOOD), (second, Rating.AGAIN), (first, Rating.AGAIN), (first, Rating.GOOD),
            (third, Rating.GOOD)]
    for user in (learner, other_learner):
        rate_item(user, second, Rating.GOOD, at=NOW - timedelta(days=3))  # studied before; the others are new

    for question, rating in plan:
        rate_item(learner, question, rating, at=NOW, source=ReviewLog.Source.QUIZ)
    with transaction.atomic():
        bulk.rate_in_bulk(kind=Kind.QUESTION, now=NOW, ratings=[
            (other_learner.pk, question.pk, {"rating": rating, "source": ReviewLog.Source.QUIZ})
            for question, rating in plan
        ])

    def memories(user):
        rows = MemoryState.objects.filter(user=user).order_by("question_id")
        return [(memory.question_id, scheduling.snapshot(memory)) for memory in rows]

    def logs(user):
        fields = ("memory__question", "rating", "was_new", "retrievability", "due_after", "state_before")
        return list(ReviewLog.objects.filter(user=user).order_by("reviewed_at", "pk").values_list(*fields))

    assert memories(learner) == memories(other_learner)
    assert MemoryState.objects.get(user=other_learner, question=first).reps == 3
    assert logs(learner) == logs(other_learner) and len(logs(learner)) == 6


def test_rating_a_new_item_twice_in_bulk_never_waits_on_fsrs(learner, monkeypatch):
    """fsrs makes a card without an id from the clock and sleeps a millisecond to keep ids unique:
    a memory made earlier in the same bulk (no pk yet) once cost that per rating, 100 s for an
    Anki history of 100,000 reviews."""
    import fsrs.card

    def sleep(seconds):
        raise AssertionError("fsrs slept for a card id")

    monkeypatch.setattr(fsrs.card.time, "sleep", sleep)
    question = make_question_set(questions=1).questions.get()
    with transaction.atomic():
        bulk.rate_in_bulk(kind=Kind.QUESTION, now=NOW, ratings=[
            (learner.pk, question.pk, {"rating": rating, "source": ReviewLog.Source.QUIZ})
            for rating in (Rating.GOOD, Rating.AGAIN, Rating.GOOD)
        ])

    assert MemoryState.objects.get(user=learner, question=question).reps == 3


def test_thousands_of_ratings_in_bulk_are_stored_within_the_databases_parameter_limit(learner):
    # PostgreSQL with server-side parameters takes 65,535 a statement: one UPDATE of 3,700
    # memories (18 fields' parameters each) would be refused; Django batches only for SQLite.
    deck = Deck.objects.create(title="Large")
    cards = Card.objects.bulk_create(
        Card(deck=deck, key=f"c{n}", position=n, front=f"F{n}", back=f"B{n}") for n in range(1, 3_701)
    )
    MemoryState.objects.bulk_create(
        MemoryState(user=learner, kind=Kind.CARD, card=card, phase=2, stability=5.0, difficulty=5.0,
                    due=NOW, last_review=NOW - timedelta(days=5), reps=1)
        for card in cards
    )
    ratings = [(learner.pk, card.pk, {"rating": Rating.GOOD, "source": STUDY}) for card in cards]
    with transaction.atomic():
        bulk.rate_in_bulk(kind=Kind.CARD, ratings=ratings, now=NOW)
    assert MemoryState.objects.filter(user=learner, reps=2, last_review=NOW).count() == 3_700
    assert ReviewLog.objects.filter(user=learner).count() == 3_700
