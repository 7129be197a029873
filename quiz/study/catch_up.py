"""Bringing attempts up to date with the clock: the one place where timed attempts past their
deadline are closed and held-back answers are released into the memory queue.

A learner's pages call `catch_up_learner` before they show the learner's queue, scores or
assignments; `manage.py catch_up` runs `catch_up` for everyone from a timer, so a learner who
never comes back still has their attempt closed and their answers scheduled.
"""

from django.utils import timezone

from quiz.models import Attempt, AttemptSlot

from .answers import release_visible_answers


def catch_up(*, now=None):
    """Close every expired attempt, then release every answer that may now be shown. Returns
    (attempts closed, answers released). For `manage.py catch_up`."""
    now = now or timezone.now()
    closed = Attempt.objects.close_expired(now)
    released = release_visible_answers(AttemptSlot.objects.all(), now=now)
    return closed, released


def catch_up_learner(user, *, now=None):
    """The same for one learner, before a page shows their queue, scores or assignments.

    In this order: an attempt closed by its deadline releases its answers in the same call,
    not one visit later. Two queries when nothing is due."""
    now = now or timezone.now()
    closed = Attempt.objects.filter(user=user).close_expired(now)
    # Through the join rather than a subquery: the attempt index leads with the user.
    released = release_visible_answers(AttemptSlot.objects.filter(attempt__user=user), now=now)
    return closed, released


def close_expired_attempts(attempts, *, now=None):
    """Only the first half, for the instructor's pages over a class's attempts: scores need
    closed attempts, while putting answers in each learner's memory queue costs a few queries
    per answer and is left to the learners' own pages and to the timer."""
    return attempts.close_expired(now or timezone.now())
