"""The drill does not give a card's second statement away."""

import random
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from quiz.models import MemoryState, Review
from quiz.scheduling import Scope, next_entry, rate
from tests.factories import make_deck

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
Kind = MemoryState.Kind
Rating = Review.Rating
Source = Review.Source


def rate_card(user, card, rating, now=NOW, source=Source.STUDY, kind=Kind.CARD):
    return rate(user=user, kind=kind, item=card, rating=rating, source=source, now=now)


# --- Drill order ------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(10))
def test_a_cards_second_statement_never_follows_its_first_while_others_are_unseen(learner, seed):
    deck = make_deck(cards=4)
    scope = Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)
    rng = random.Random(seed)
    shown = []
    now = NOW
    # A second a statement, so nothing rated Good comes back due: each entry is a new statement.
    while (entry := next_entry(user=learner, scope=scope, now=now, rng=rng)) is not None:
        shown.append((entry.item.pk, entry.kind))
        rate_card(learner, entry.item, Rating.GOOD, now=now, source=Source.DRILL, kind=entry.kind)
        now += timedelta(seconds=1)

    assert sorted(shown) == sorted((card.pk, kind) for card in deck.cards.all() for kind in (Kind.MYTH, Kind.FACT))
    assert all(first[0] != second[0] for first, second in pairwise(shown)), shown


def test_the_drill_starts_with_a_random_card_not_the_first(learner):
    deck = make_deck(cards=6)
    scope = Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)

    firsts = {next_entry(user=learner, scope=scope, now=NOW, rng=random.Random(seed)).item.pk for seed in range(20)}

    assert len(firsts) > 1


def test_a_new_drill_statement_takes_three_queries_however_many_cards(learner, django_assert_num_queries):
    deck = make_deck(cards=30)
    scope = Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck)
    for card in deck.cards.all()[:10]:
        rate_card(learner, card, Rating.GOOD, source=Source.DRILL, kind=Kind.MYTH)

    # due reviews; the candidate cards with what has been drilled of each; the chosen card
    with django_assert_num_queries(3):
        entry = next_entry(user=learner, scope=scope, now=NOW, rng=random.Random(1))

    assert not MemoryState.objects.filter(user=learner, card=entry.item).exists()
