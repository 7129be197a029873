"""Drill order, undo guards, and the Myth-or-fact drill through its page: tokens, grading and mixing."""

import random
import re
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import MemoryState, ReviewLog
from quiz.study import queue, scheduling
from quiz.study.queue import Scope, next_entry
from quiz.study.scheduling import last_undoable, rate, undo_last
from tests.factories import make_deck, make_question_set
from tests.helpers import rate_item, shown_token

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
Kind = MemoryState.Kind
Rating = ReviewLog.Rating
Source = ReviewLog.Source


def deck_scope(deck):
    return Scope(kinds=(Kind.CARD,), deck=deck)


def snapshot_of(user, card):
    return scheduling.snapshot(MemoryState.objects.get(user=user, kind=Kind.CARD, card=card))


# --- Drill order ------------------------------------------------------------------------------

def drill_until_done(learner, deck, rng):
    """[(card id, kind, statements of other cards still new)] in the order the drill shows them,
    rating each Good a second apart (so nothing comes back due) until nothing new is left."""
    scope = Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)
    new = {(card.pk, kind) for card in deck.cards.all() for kind in (Kind.MYTH, Kind.FACT)}
    shown, now = [], NOW
    while (entry := next_entry(user=learner, scope=scope, now=now, rng=rng)) is not None:
        others_new = any(pk != entry.item.pk for pk, _ in new)
        shown.append((entry.item.pk, entry.kind, others_new))
        new.discard((entry.item.pk, entry.kind))
        rate_item(learner, entry.item, Rating.GOOD, at=now, source=Source.DRILL, kind=entry.kind)
        now += timedelta(seconds=1)
    return shown


@pytest.mark.parametrize("seed", range(10))
def test_every_statement_is_drilled_and_a_card_never_comes_twice_in_a_row_while_others_are_new(learner, seed):
    deck = make_deck(cards=4)

    shown = drill_until_done(learner, deck, random.Random(seed))

    every = {(card.pk, kind) for card in deck.cards.all() for kind in (Kind.MYTH, Kind.FACT)}
    assert {(pk, kind) for pk, kind, _ in shown} == every
    assert not [(a, b) for a, b in pairwise(shown) if a[0] == b[0] and b[2]], shown


def test_a_cards_next_statement_is_a_fresh_coin_toss_not_the_opposite_of_its_first(learner):
    """Knowing the first statement shown of a card must not tell the next one's kind."""
    same = total = 0
    for seed in range(60):
        deck = make_deck(cards=2)
        shown = drill_until_done(learner, deck, random.Random(seed))
        for card in deck.cards.all():
            kinds = [kind for pk, kind, _ in shown if pk == card.pk]
            if len(kinds) >= 2:
                same += kinds[0] == kinds[1]
                total += 1

    assert total > 80
    assert 0.3 < same / total < 0.7, (same, total)  # was 0: always the opposite


def test_the_drill_starts_with_a_random_card_not_the_first(learner):
    deck = make_deck(cards=6)
    scope = Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)

    firsts = {next_entry(user=learner, scope=scope, now=NOW, rng=random.Random(seed)).item.pk for seed in range(20)}

    assert len(firsts) > 1


def test_a_new_drill_statement_takes_three_queries_however_many_cards(learner, django_assert_num_queries):
    deck = make_deck(cards=30)
    scope = Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)
    for card in deck.cards.all()[:10]:
        rate_item(learner, card, Rating.GOOD, at=NOW, source=Source.DRILL, kind=Kind.MYTH)

    # due reviews; the candidate cards with what has been drilled of each; the chosen card
    with django_assert_num_queries(3):
        entry = next_entry(user=learner, scope=scope, now=NOW, rng=random.Random(1))

    assert not MemoryState.objects.filter(user=learner, card=entry.item).exists()


# --- Undo -------------------------------------------------------------------------------------

def test_undo_in_one_decks_session_never_undoes_another_decks_rating(learner):
    deck_a, deck_b = make_deck(cards=1), make_deck(cards=1)
    card_a, card_b = deck_a.cards.get(), deck_b.cards.get()
    rate_item(learner, card_a, Rating.GOOD, at=NOW)
    rate_item(learner, card_b, Rating.GOOD, at=NOW + timedelta(minutes=1))  # the learner's latest rating

    undone = undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck_a))

    assert undone.memory.card == card_a
    assert not MemoryState.objects.filter(card=card_a).exists()
    assert ReviewLog.objects.get().memory.card == card_b


def test_undo_in_a_deck_with_nothing_of_its_own_to_undo_does_nothing(learner):
    deck_a, deck_b = make_deck(cards=1), make_deck(cards=1)
    rate_item(learner, deck_b.cards.get(), Rating.GOOD, at=NOW)

    assert last_undoable(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck_a)) is None
    assert undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck_a)) is None
    assert ReviewLog.objects.count() == 1


def test_undo_never_reaches_another_learners_rating(learner, other_learner):
    deck = make_deck(cards=1)
    rate_item(other_learner, deck.cards.get(), Rating.GOOD, at=NOW)

    assert undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck)) is None
    assert ReviewLog.objects.count() == 1


@pytest.mark.parametrize("source", [Source.REVIEW, Source.QUIZ])
def test_in_the_review_session_nothing_is_undoable_after_a_question_answer(learner, source):
    card = make_deck(cards=1).cards.get()
    question = make_question_set(questions=1).questions.get()
    scope = Scope(kinds=MemoryState.REVIEW_KINDS, include_new=False)
    rate_item(learner, card, Rating.GOOD, at=NOW)
    rate(user=learner, kind=Kind.QUESTION, item=question, rating=Rating.AGAIN, source=source, now=NOW + timedelta(minutes=1))
    before = snapshot_of(learner, card)

    assert last_undoable(user=learner, sources=(Source.STUDY,), scope=scope) is None
    assert undo_last(user=learner, sources=(Source.STUDY,), scope=scope) is None
    assert ReviewLog.objects.count() == 2
    assert snapshot_of(learner, card) == before


def test_in_the_review_session_the_last_flashcard_rating_is_undoable(learner):
    card = make_deck(cards=1).cards.get()
    question = make_question_set(questions=1).questions.get()
    scope = Scope(kinds=MemoryState.REVIEW_KINDS, include_new=False)
    rate(user=learner, kind=Kind.QUESTION, item=question, rating=Rating.GOOD, source=Source.REVIEW, now=NOW)
    latest = rate_item(learner, card, Rating.GOOD, at=NOW + timedelta(minutes=1))

    assert last_undoable(user=learner, sources=(Source.STUDY,), scope=scope) == latest


def test_two_undos_of_the_same_review_undo_once(learner):
    deck = make_deck(cards=1)
    card = deck.cards.get()
    kept = rate_item(learner, card, Rating.GOOD, at=NOW)
    after_first = snapshot_of(learner, card)
    rate_item(learner, card, Rating.HARD, at=NOW + timedelta(minutes=11))
    offered = last_undoable(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck))

    first = undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck), review_id=offered.pk)
    second = undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck), review_id=offered.pk)

    assert (first.pk, second) == (offered.pk, None)
    assert list(ReviewLog.objects.all()) == [kept]  # the double click did not undo the rating before
    assert snapshot_of(learner, card) == after_first


def test_undo_of_a_review_that_is_no_longer_the_last_does_nothing(learner):
    deck = make_deck(cards=2)
    first_card, second_card = deck.cards.order_by("position")
    stale = rate_item(learner, first_card, Rating.GOOD, at=NOW)
    rate_item(learner, second_card, Rating.GOOD, at=NOW + timedelta(minutes=1))

    assert undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck), review_id=stale.pk) is None
    assert ReviewLog.objects.count() == 2


def test_a_rating_that_lands_before_the_undo_writes_makes_it_change_nothing(learner):
    deck = make_deck(cards=1)
    card = deck.cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW)
    rate_item(learner, card, Rating.AGAIN, at=NOW + timedelta(minutes=11))
    seen_by_undo = last_undoable(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck))
    rate_item(learner, card, Rating.GOOD, at=NOW + timedelta(minutes=12))  # another tab, meanwhile
    before = snapshot_of(learner, card)

    with mock.patch.object(scheduling, "last_undoable", return_value=seen_by_undo):
        undone = undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck))

    assert undone is None
    assert snapshot_of(learner, card) == before
    assert ReviewLog.objects.count() == 3


def test_a_rating_that_lands_before_undoing_a_first_rating_keeps_the_card(learner):
    deck = make_deck(cards=1)
    card = deck.cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW)
    seen_by_undo = last_undoable(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck))
    rate_item(learner, card, Rating.GOOD, at=NOW + timedelta(minutes=11))
    before = snapshot_of(learner, card)

    with mock.patch.object(scheduling, "last_undoable", return_value=seen_by_undo):
        undone = undo_last(user=learner, sources=(Source.STUDY,), scope=deck_scope(deck))

    assert undone is None
    assert snapshot_of(learner, card) == before
    assert ReviewLog.objects.count() == 2


# --- Myth or fact through its page -------------------------------------------------------------------

def drill_url(deck):
    return reverse("drill", args=[deck.pk])


def test_a_drill_statement_does_not_say_whether_it_is_a_myth(learner_client, deck):
    html = learner_client.get(drill_url(deck)).content.decode()
    main = html.split("<main", 1)[1]

    assert 'value="myth"' in main and 'value="fact"' in main
    assert "Common mistake" not in main and "Myth." not in main
    assert not re.search(r'data-(kind|answer|statement)', main)
    # Nothing in the form names the card: its id would let the card page tell the kind.
    assert 'name="item"' not in main
    assert not any(f'value="{pk}"' in main for pk in deck.cards.values_list("pk", flat=True))


def test_answering_the_drill_grades_against_the_statement_shown(learner_client, learner, deck):
    html = learner_client.get(drill_url(deck)).content.decode()
    card = next(card for card in deck.cards.all() if card.misconception in html or card.back in html)
    is_myth = card.misconception in html

    response = learner_client.post(
        drill_url(deck), {"token": shown_token(html), "answer": "myth" if is_myth else "fact"}, follow=True
    )

    review = ReviewLog.objects.get(source="drill")
    assert review.rating == ReviewLog.Rating.GOOD
    assert review.memory.kind == ("myth" if is_myth else "fact")
    page = response.content.decode()
    assert "Correct!" in page
    assert (card.correction if is_myth else "This is the right answer") in page


def test_a_repeated_drill_answer_is_refused(learner_client, deck):
    token = shown_token(learner_client.get(drill_url(deck)).content.decode())
    learner_client.post(drill_url(deck), {"token": token, "answer": "myth"})

    response = learner_client.post(drill_url(deck), {"token": token, "answer": "fact"})

    assert response.status_code == 409
    assert ReviewLog.objects.count() == 1


def test_myths_and_facts_are_mixed_about_evenly(learner, db):
    deck = make_deck(cards=200)
    scope = queue.Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)
    rng = random.Random(7)
    kinds = []
    for _ in range(200):
        entry = queue.next_entry(user=learner, scope=scope, rng=rng)
        kinds.append(entry.kind)
        scheduling.rate(user=learner, kind=entry.kind, item=entry.item, rating=3, source="drill")

    assert 80 <= kinds.count(Kind.MYTH) <= 120


def test_a_believed_myth_comes_back(learner, deck):
    card = deck.cards.first()
    now = timezone.now()
    scheduling.rate(user=learner, kind=Kind.MYTH, item=card, rating=1, source="drill", now=now)
    scope = queue.Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck, include_new=False)

    entry = queue.next_entry(user=learner, scope=scope, now=now + timedelta(minutes=2))

    assert (entry.kind, entry.item) == (Kind.MYTH, card)


@pytest.fixture
def deck(db):
    return make_deck("Memory deck", cards=3)
