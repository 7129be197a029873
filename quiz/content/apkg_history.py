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

A history of years holds hundreds of thousands of reviews, more than one request should write.
The browser import keeps it as a HistoryImport per deck (`start_history_imports`) and writes it a
step of a few thousand reviews at a time (`import_history_step`), whole cards per step, each step
its own transaction: the apply writes the first step, the progress page the next ones (HTMX, or a
button), and `manage.py catch_up` what a learner who left the page did not wait for.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..models import Card, Deck, HistoryImport, MemoryState, ReviewLog, StudyDay
from ..study import scheduling
from ..study.bulk import rate_in_bulk
from .apkg_format import looks_like_package, review_history
from .documents import ContentError
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


def reviews_in(files, format=""):
    """{file name: reviews in its history} for the Anki packages among `files` that have any: what
    the preview page asks consent for ("Also import your 1,234 reviews from Anki")."""
    found = {}
    for name, history in _histories(files, format):
        if count := sum(len(reviews) for reviews in history.values()):
            found[name] = count
    return found


def _histories(files, format):
    """(file name, review history) of the files read as Anki packages: in the import's format, or
    (none chosen) recognised as one. A file that only looks like one (a text file beginning as a
    zip does) has none."""
    for name, data in files:
        if format not in ("", None, "apkg") or not looks_like_package(data):
            continue
        try:
            yield name, review_history(name, data)
        except ContentError:
            continue


# --- In steps ----------------------------------------------------------------------------------------

STEP_REVIEWS = 5_000  # reviews a step writes at most (whole cards): a second or two


def start_history_imports(user, files, documents, *, format="", now=None):
    """Keep the review history of every Anki package among `files` for the decks its
    `documents` were saved as, `user`'s own, as HistoryImports to write in steps. Only the
    reviews of the decks' cards are kept. Returns them (not written yet)."""
    now = now or timezone.now()
    jobs = []
    for name, history in _histories(files, format):
        for document in documents:
            if document.file != name or (deck := existing_container(Deck, document, user)) is None:
                continue
            keys = Card.objects.current().filter(deck=deck, key__in=list(history)).values_list("key", flat=True)
            reviews = {key: [[_milliseconds(moment), rating, duration] for moment, rating, duration in history[key]]
                       for key in keys}
            if total := sum(len(card_reviews) for card_reviews in reviews.values()):
                jobs.append(HistoryImport(owner=user, deck=deck, reviews=reviews, total=total, left=total,
                                          cards=len(reviews), created_at=now))
    return HistoryImport.objects.bulk_create(jobs)


def import_history_step(job_id, *, now=None, max_reviews=None):
    """Write the next step of the HistoryImport `job_id`: the reviews of the next cards (in key
    order), at least one card and at most `max_reviews` reviews unless one card has more. One
    transaction, the job locked: two steps at once write each card once. Returns the job as it
    is now, or None when it was finished (or is gone)."""
    now = now or timezone.now()
    with transaction.atomic():
        job = HistoryImport.objects.select_for_update().filter(pk=job_id, finished_at=None).first()
        if job is None:
            return None
        step, count = {}, 0
        for key in sorted(job.reviews):  # PostgreSQL's jsonb keeps no order of its own
            reviews = job.reviews[key]
            if step and count + len(reviews) > (max_reviews or STEP_REVIEWS):
                break
            step[key] = [(_moment(ms), rating, duration) for ms, rating, duration in reviews]
            count += len(reviews)
        counts = import_review_history(job.owner, job.deck, step, now=now)
        for key in step:
            del job.reviews[key]
        job.left -= count
        job.added += counts.added
        job.already += counts.already
        job.later += counts.later
        if not job.reviews:
            job.finished_at = now
        job.save(update_fields=["reviews", "left", "added", "already", "later", "finished_at"])
        return job


def first_steps(jobs, *, now=None):
    """Write up to one step's worth of reviews (STEP_REVIEWS in all) of `jobs`, in order, as the
    apply does: the jobs as they are now."""
    written, done = 0, []
    for job in jobs:
        while written < STEP_REVIEWS and job.finished_at is None:
            before = job.left
            job = import_history_step(job.pk, now=now, max_reviews=STEP_REVIEWS - written) or job
            written += before - job.left
            if before == job.left:
                break
        done.append(job)
    return done


def finish_history_imports(*, now=None):
    """Write every unfinished HistoryImport to its end (the catch-up timer): the number written."""
    finished = 0
    for job_id in HistoryImport.objects.filter(finished_at=None).order_by("pk").values_list("pk", flat=True):
        while (job := import_history_step(job_id, now=now)) is not None and job.finished_at is None:
            pass
        finished += job is not None
    return finished


def history_imports_of(owner, *, now=None):
    """The owner's HistoryImports to show: those still being written and those finished within
    the last day, newest first (at most ten), without their reviews. One query."""
    now = now or timezone.now()
    recent = Q(finished_at=None) | Q(finished_at__gte=now - timedelta(days=1))
    return list(HistoryImport.objects.filter(recent, owner=owner).defer("reviews").select_related("deck")
                .order_by("-created_at", "-pk")[:10])


def next_history_step(owner, *, now=None):
    """Write the next step of the owner's oldest unfinished HistoryImport: it, or None when
    there is none."""
    unfinished = HistoryImport.objects.filter(owner=owner, finished_at=None).order_by("pk").values_list("pk", flat=True)
    for job_id in unfinished[:1]:
        return import_history_step(job_id, now=now)
    return None


def history_counts(jobs):
    """The HistoryCounts of `jobs` together, as far as they are written."""
    counts = HistoryCounts()
    for job in jobs:
        counts += HistoryCounts(cards=job.cards, added=job.added, already=job.already, later=job.later)
    return counts


def _milliseconds(moment):
    return round(moment.timestamp() * 1000)


def _moment(milliseconds):
    return datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
