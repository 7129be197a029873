"""A learner's review history brought from an Anki package, with their consent, so a learner moving
from Anki keeps their schedule and their personal FSRS fit has their history from the first day.

Each review of the package's log (apkg_format: its learning, review and relearning entries)
becomes a ReviewLog row of the learner (source "import") for the card of the deck with that
card's key, and each card's memory is what FSRS makes of its whole log in time order, with the
learner's parameters and desired retention: `quiz.study.bulk.rate_in_bulk` applies reviews that
come after the learner's last one on top of the stored state, and replays the whole log of a card
whose imported reviews come before it. Anki's own scheduling of the cards (intervals, ease, its
FSRS state) is not copied: the replay is what this app's scheduler would have done with the same
answers.

Importing the same package again adds nothing: a review already in the learner's log for that
card at the same instant is skipped. Only `user`'s rows are written; the caller checks that the
learner may study the deck (the browser import: the deck is the importer's own).
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from ..models import Card, Deck, MemoryState, ReviewLog, StudyDay
from ..study import scheduling
from ..study.bulk import rate_in_bulk
from .apkg_format import looks_like_package, review_history
from .sync import existing_container


@dataclass
class HistoryCounts:
    cards: int = 0  # the deck's cards with reviews in the package
    added: int = 0  # reviews written to the learner's log
    already: int = 0  # reviews already in it (the same package imported before)
    later: int = 0  # reviews dated after now (a clock set wrong), left out

    def __iadd__(self, other):
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self


def import_review_history(user, deck, history, *, now=None):
    """Write `history` ({card key: [(reviewed_at, rating, duration_ms)]}, as apkg_format.parse_apkg
    returns it) into `user`'s log for the cards of `deck` with those keys, and rebuild their
    memories. Keys of no card of the deck are ignored (another deck of the package). Returns
    HistoryCounts. One transaction."""
    now = now or timezone.now()
    counts = HistoryCounts()
    cards = dict(Card.objects.current().filter(deck=deck, key__in=list(history)).values_list("key", "pk"))
    if not cards:
        return counts
    with transaction.atomic():
        # The learner's row first (as every rating takes it), so a second import of the same
        # package at the same moment waits, then finds these reviews and skips them.
        scheduling.lock_learners([user.pk])
        present = set(
            ReviewLog.objects.filter(user=user, memory__kind=MemoryState.Kind.CARD, memory__card__in=cards.values())
            .values_list("memory__card_id", "reviewed_at")
        )
        ratings = []
        for key, card_id in cards.items():
            counts.cards += 1
            for moment, rating, duration_ms in history[key]:
                if moment > now:
                    counts.later += 1
                elif (card_id, moment) in present:
                    counts.already += 1
                else:
                    present.add((card_id, moment))
                    fields = {"rating": rating, "source": ReviewLog.Source.IMPORT, "reviewed_at": moment,
                              "duration_ms": duration_ms}
                    ratings.append((user.pk, card_id, fields))
        if not ratings:
            return counts
        # In time order, so each card's reviews are applied as they were given (a stable sort).
        ratings.sort(key=lambda rating: rating[2]["reviewed_at"])
        rate_in_bulk(kind=MemoryState.Kind.CARD, ratings=ratings, now=now,
                     schedulers={user.pk: scheduling.scheduler_for(user)})
        counts.added = len(ratings)
        # Days already counted for the dashboard now have more reviews: count them again.
        first = ratings[0][2]["reviewed_at"]
        StudyDay.objects.forget_days_before_today({user.pk: (user.time_zone, first)}, now)
    return counts


def import_package_reviews(user, files, documents, *, now=None):
    """The apply step's call, after saving `documents` for `user` (their owner): import the review
    history of every Anki package among `files` ([(name, bytes)], as staged) into the decks its
    documents were saved as. Returns HistoryCounts, all decks together."""
    counts = HistoryCounts()
    for name, data in files:
        if not looks_like_package(data):
            continue
        history = review_history(name, data)
        for document in documents:
            if document.file == name and (deck := existing_container(Deck, document, user)) is not None:
                counts += import_review_history(user, deck, history, now=now)
    return counts


def reviews_in(files):
    """{file name: reviews in its history} for the Anki packages among `files` that have any: what
    the preview page asks consent for ("Also import your 1,234 reviews from Anki")."""
    found = {}
    for name, data in files:
        if looks_like_package(data):
            if count := sum(len(reviews) for reviews in review_history(name, data).values()):
                found[name] = count
    return found
