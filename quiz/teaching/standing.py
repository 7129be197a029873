"""Where one learner stands on one assignment: its status and the score that counts.

The one rule behind the gradebook, the learner's assignment page and their home, so the
three never disagree. It reads the learner's attempts at the assignment (in start order)
and their rules in force (override included):

- An attempt is late when it finished after the learner's *current* due date, so an
  extension granted after a late finish clears "late" everywhere at once.
- The status of a learner with finished attempts is the status of the attempt(s) the
  grading rule counts: with "best attempt counts", an on-time 50% and a late 100% are
  "late", because the 100% is what the gradebook shows. (For an average every attempt
  counts, so any late one makes it "late".)
- An open attempt shows "in progress" even after earlier submissions: the learner is at it.
"""

from dataclasses import dataclass

from quiz.lib.numbers import percent, percent_of
from quiz.models import Assignment

Grading = Assignment.Grading


class Status:
    UPCOMING = "upcoming"
    NOT_STARTED = "not started"
    IN_PROGRESS = "in progress"
    SUBMITTED = "submitted"
    LATE = "late"
    MISSED = "missed"


@dataclass(frozen=True)
class Standing:
    status: str
    score: int | None  # 0-100, what the grading rule counts; None before a finished attempt
    finished: int  # finished attempts
    open_attempt_id: int | None
    late: bool  # the counted attempt (any, for an average) finished after the due date


def is_late(attempt, rules):
    return attempt.finished_at is not None and attempt.finished_at > rules.due_at


def standing_of(*, attempts, rules, grading, now):
    """The learner's standing from their attempts at the assignment, in start order."""
    finished = [a for a in attempts if a.finished_at is not None]
    open_attempt_id = next((a.pk for a in attempts if a.finished_at is None), None)
    # An attempt none of whose questions count (all excluded after the fact) has no score: it
    # is neither a 0 to count nor one to average in; its timing still tells "late".
    scored = [a for a in finished if a.counted_questions]
    picked = counted(scored, grading, score=share)
    late = any(is_late(a, rules) for a in (picked or finished))
    # The exact shares are averaged and rounded once (half up), as a recount from the rows would.
    score = percent_of(sum(share(a) for a in picked) / len(picked)) if picked else None
    return Standing(_status(rules, finished, open_attempt_id, late, now), score, len(finished), open_attempt_id, late)


def share(attempt):
    return attempt.counted_points / attempt.counted_questions


def _status(rules, finished, open_attempt_id, late, now):
    if open_attempt_id:
        return Status.IN_PROGRESS
    if finished:
        return Status.LATE if late else Status.SUBMITTED
    if now < rules.opens_at:
        return Status.UPCOMING
    return Status.MISSED if now > rules.due_at else Status.NOT_STARTED


def counted(items, grading, score=lambda item: item):
    """What the grading rule counts, from items in start order: the best, first or last one,
    or all of them for an average. `score` reads an item's score (0-100)."""
    if not items:
        return []
    if grading == Grading.AVERAGE:
        return list(items)
    if grading == Grading.BEST:
        return [max(items, key=score)]  # the earliest of equal bests
    return [items[0] if grading == Grading.FIRST else items[-1]]


def counted_score(scores, grading):
    """The score (0-100) that counts, from finished attempts' scores in start order, by the rule."""
    picked = counted(scores, grading)
    return percent(sum(picked), 100 * len(picked)) if picked else None
