"""A simulated learner whose memory follows known FSRS parameters, not the defaults: for the
personal-parameter tests and bench/fit.py.

The learner is scheduled as the app would schedule anyone new (default parameters, retention
0.9, with some spread in when they actually come back), but whether they recall an item is
drawn from the recall their true parameters predict. A fit to their log should find memory
closer to the truth than the defaults, and so predict their later reviews better.
"""

import random
from datetime import UTC, datetime, timedelta

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler

from quiz.models import Card, Deck, MemoryState, ReviewLog

DEFAULTS = Scheduler(enable_fuzzing=False)
# Forgets a new item faster (a quarter of the default first stability after Good), gains less
# from each success (w8), and has a steeper forgetting curve (w20).
TRUE_PARAMETERS = list(DEFAULTS.parameters)
TRUE_PARAMETERS[2] *= 0.15
TRUE_PARAMETERS[8] = 1.0
TRUE_PARAMETERS[20] = 0.5
START = datetime(2025, 1, 1, tzinfo=UTC)


def simulate_histories(items, *, reviews_per_item=8, seed=1, true_parameters=TRUE_PARAMETERS):
    """[[(moment, rating), ...] per item], each in time order, over about a year."""
    rng = random.Random(seed)
    truth = Scheduler(parameters=true_parameters, enable_fuzzing=False)
    histories = []
    for number in range(items):
        scheduled, remembered = FsrsCard(card_id=number + 1, due=START), FsrsCard(card_id=number + 1, due=START)
        moment, history = START + timedelta(days=rng.random() * 120, seconds=rng.randrange(86400)), []
        for review in range(reviews_per_item):
            recalled = review == 0 or rng.random() < truth.get_card_retrievability(remembered, moment)
            rating = Rating.Good if recalled else Rating.Again
            history.append((moment, int(rating)))
            remembered, _ = truth.review_card(remembered, rating, moment)
            scheduled, _ = DEFAULTS.review_card(scheduled, rating, moment)
            moment += (scheduled.due - moment) * rng.uniform(0.5, 2.5)
        histories.append(history)
    return histories


def store_histories(user, histories, *, batch_size=5000):
    """The histories as the learner's flashcards (one deck of new cards), memory rows and review
    log. The memory rows and `due_after` are placeholders: fitting reads only ratings and times."""
    deck = Deck.objects.create(title=f"Simulated deck of {user.username}", owner=user)
    cards = Card.objects.bulk_create(
        Card(deck=deck, key=f"s{number}", position=number, front=f"Front {number}", back="Back")
        for number in range(len(histories))
    )
    memories = MemoryState.objects.bulk_create(
        MemoryState(user=user, kind=MemoryState.Kind.CARD, card=card, due=history[-1][0], last_review=history[-1][0],
                    reps=len(history), stability=1.0, difficulty=5.0, phase=MemoryState.Phase.REVIEW)
        for card, history in zip(cards, histories)
    )
    ReviewLog.objects.bulk_create(
        (ReviewLog(user=user, memory=memory, source=ReviewLog.Source.STUDY, rating=rating, reviewed_at=moment,
                   due_after=moment, was_new=index == 0)
         for memory, history in zip(memories, histories) for index, (moment, rating) in enumerate(history)),
        batch_size=batch_size,
    )
    return sum(len(history) for history in histories)
