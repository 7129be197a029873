"""Bringing attempts up to date with the clock: the one place where timed attempts past their
deadline are closed and held-back answers are released into the memory queue.

A learner's pages call `catch_up_learner` before they show the learner's queue, scores or
assignments; `manage.py catch_up` runs `catch_up` for everyone from a timer, so a learner who
never comes back still has their attempt closed and their answers scheduled.
"""

from django.db.models import Exists, OuterRef
from django.utils import timezone

from quiz.models import Attempt, AttemptSlot, User

from .answers import pending_release, release_visible_answers


def catch_up(*, now=None, dry_run=False):
    """Close every expired attempt, then release every answer that may now be shown. Returns
    (attempts closed, answers released); with `dry_run`, what would be, writing nothing.
    For `manage.py catch_up`."""
    now = now or timezone.now()
    if dry_run:
        return Attempt.objects.expired(now).count(), pending_release(AttemptSlot.objects.all(), now).count()
    closed = Attempt.objects.close_expired(now)
    released = release_visible_answers(AttemptSlot.objects.all(), now=now)
    return closed, released


def catch_up_learner(user, *, now=None):
    """The same for one learner, before a page shows their queue, scores, history or assignments.

    In this order: an attempt closed by its deadline releases its answers in the same call,
    not one visit later. One read when nothing is due, and no write: on SQLite a write takes
    the database's lock, and this runs on every study page."""
    now = now or timezone.now()
    owed = _owed(user.pk, now).first()
    if owed is None or not (owed.expired or owed.pending):
        return 0, 0
    closed = close_expired_attempts(Attempt.objects.filter(user=user), now=now) if owed.expired else 0
    released = release_visible_answers(_slots_of(user.pk), now=now)
    return closed, released


def _slots_of(user_id):
    # Through the join rather than a subquery: the attempt index leads with the user.
    return AttemptSlot.objects.filter(attempt__user_id=user_id)


def _owed(user_id, now):
    """The learner's row with whether they have an expired attempt to close and answers to
    release: both questions in one query, which every study page asks."""
    return User.objects.filter(pk=user_id).annotate(
        expired=Exists(Attempt.objects.filter(user=OuterRef("pk")).expired(now)),
        pending=Exists(pending_release(_slots_of(OuterRef("pk")), now)),
    ).only("pk")


def close_expired_attempts(attempts, *, now=None):
    """Close the expired attempts among `attempts` (one read when there are none). On its own
    for the instructor's pages over a class's attempts: scores need closed attempts, while
    putting answers in each learner's memory queue writes to their memory and review log, and
    is left to the learners' own pages and to the timer."""
    now = now or timezone.now()
    if not attempts.expired(now).exists():
        return 0
    return attempts.close_expired(now)


def finish_and_release(attempt, *, now=None, finished_at=None):
    """Close one attempt (its time ran out, or every question is answered) and release the
    answers that may be shown once it is finished. `finished_at`: when it really ended (the
    last answer's time, for an attempt whose last two answers came at once and so neither
    closed it), which decides lateness and the time taken."""
    now = now or timezone.now()
    attempt.finish(now=finished_at or now)
    return release_visible_answers(attempt.slots.all(), now=now)
