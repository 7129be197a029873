"""What the learner knows, aggregated by the database from their memory states.

One UNION ALL over the learner's memory states (one row per studied item, so bounded by the
size of the content, never by the number of answers). It yields mastery per question set,
deck and topic (accuracy of recent answers, average predicted recall now and on exam day,
items at risk on exam day), the due forecast, the count of mistakes, the most-missed
questions and the most-believed myths.

Predicted recall is FSRS's forgetting curve, R = (1 + FACTOR * t / S) ** DECAY, with t the
days since the last review and S the stability, computed in SQL with the scheduler's own
parameters, so the dashboard and the study pages agree.

Keyword-only functions with an explicit `now`, so tests run on a fixed clock.
"""

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    FloatField,
    Func,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, TruncDate

from .. import scheduling
from ..models import MemoryState, ReviewLog, count_of

Kind = MemoryState.Kind

RECENT_DAYS = 30  # accuracy of "recent answers"
MISSED_DAYS = 90  # window for the most-missed questions
FORECAST_DAYS = 30
TOP = 5  # most-missed questions and most-believed myths shown


# --- Mastery, forecast and problem items: one query over the memory table ---------------------------

@dataclass
class Mastery:
    """One set, deck or topic: how well the learner knows it."""

    dim: str  # "set", "deck" or "topic"
    key: int
    name: str
    items: int = 0  # studied items with a recall estimate
    answers: int = 0  # answers in the last RECENT_DAYS
    correct: int = 0
    recall_sum: float = 0.0
    exam_sum: float = 0.0
    at_risk: int = 0  # items predicted below the target on exam day
    has_questions: bool = False
    deck_id: int | None = None  # for a topic with cards only: where to study it

    @property
    def accuracy(self):
        return self.correct / self.answers if self.answers else None

    @property
    def recall(self):
        return self.recall_sum / self.items if self.items else None

    @property
    def exam_recall(self):
        return self.exam_sum / self.items if self.items else None

    @property
    def score(self):
        """What "weakest first" sorts by: predicted recall, or accuracy before any recall exists."""
        return self.recall if self.recall is not None else self.accuracy

    def merge(self, other):
        for name in ("items", "answers", "correct", "recall_sum", "exam_sum", "at_risk"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.has_questions = self.has_questions or other.has_questions
        self.deck_id = self.deck_id or other.deck_id


@dataclass
class Problem:
    """A most-missed question or a most-believed myth."""

    key: int
    text: str
    parent: int  # the question's set, the myth's deck
    answers: int
    wrong: int
    believed_now: bool = False

    @property
    def share_wrong(self):
        return self.wrong / self.answers if self.answers else 0


@dataclass
class MemorySummary:
    due_now: int = 0
    mistakes: int = 0
    forecast: dict = field(default_factory=dict)  # {date: count} for the next FORECAST_DAYS days
    sets: list = field(default_factory=list)
    decks: list = field(default_factory=list)
    topics: list = field(default_factory=list)
    missed: list = field(default_factory=list)
    myths: list = field(default_factory=list)


# The columns every part of the union selects, in this order.
COLUMNS = ("dim", "key", "name", "parent", "items", "answers", "correct", "recall_sum", "exam_sum", "at_risk")


def _part(memories, dim, key, name, parent, **numbers):
    """One SELECT of the union: the same columns, in the same order, with the same types."""
    defaults = {
        "items": Value(0),
        "answers": Value(0),
        "correct": Value(0),
        "recall_sum": Value(0.0),
        "exam_sum": Value(0.0),
        "at_risk": Value(0),
    }
    defaults.update(numbers)
    grouped = memories.order_by().values(
        dim=Value(dim, output_field=CharField()),
        key=Cast(key, IntegerField()),
        name=Cast(name, CharField()),
    )
    return grouped.annotate(
        parent=Cast(parent, IntegerField()),
        **{name: Cast(value, FloatField()) for name, value in defaults.items()},
    ).values_list(*COLUMNS)


def _mastery_numbers(user, now, exam_moment, target):
    since = now - timedelta(days=RECENT_DAYS)
    recent = ReviewLog.objects.filter(memory=OuterRef("pk"), reviewed_at__gte=since)
    studied = Q(last_review__isnull=False, stability__gt=0)
    numbers = {
        "items": Count("pk", filter=studied),
        "answers": Sum(count_of(recent)),
        "correct": Sum(count_of(recent.filter(rating__gt=ReviewLog.Rating.AGAIN))),
        "recall_sum": Coalesce(Sum(scheduling.recall_expression(now), filter=studied), 0.0),
    }
    if exam_moment is not None:
        exam_recall = scheduling.recall_expression(exam_moment)
        numbers["exam_sum"] = Coalesce(Sum(exam_recall, filter=studied), 0.0)
        numbers["at_risk"] = Sum(
            Case(When(studied, then=_LessThan(exam_recall, Value(target))), default=Value(0), output_field=IntegerField())
        )
    return numbers


class _LessThan(Func):
    """`a < b` as a 0/1 integer, portable between SQLite and PostgreSQL."""

    output_field = IntegerField()
    template = "(CASE WHEN %(expressions)s THEN 1 ELSE 0 END)"
    arg_joiner = " < "


def memory_summary(*, user, now, exam_moment=None, target=0.9):
    """Everything the dashboard reads from the memory table, in one query (see the module doc)."""
    mine = MemoryState.objects.filter(user=user)
    numbers = _mastery_numbers(user, now, exam_moment, target)
    questions = mine.filter(kind=Kind.QUESTION)
    cards = mine.filter(kind__in=MemoryState.CARD_KINDS)
    parts = [
        _part(questions, "set", F("question__question_set_id"), F("question__question_set__title"), Value(0), **numbers),
        _part(cards, "deck", F("card__deck_id"), F("card__deck__title"), Value(0), **numbers),
        _part(
            questions.filter(question__topics__isnull=False),
            "topic-q", F("question__topics__id"), F("question__topics__name"), Value(0), **numbers,
        ),
        _part(
            cards.filter(card__topics__isnull=False),
            "topic-c", F("card__topics__id"), F("card__topics__name"), Min("card__deck_id"), **numbers,
        ),
        _forecast_part(mine, user, now),
        _part(
            questions.filter(last_rating=ReviewLog.Rating.AGAIN), "mistakes", Value(0), Value(""), Value(0),
            items=Count("pk"),
        ),
        _missed_part(questions, user, now),
        _myths_part(mine),
    ]
    rows = parts[0].union(*parts[1:], all=True)
    return _summarise(rows, user, now)


def _forecast_part(mine, user, now):
    """Due items per day of the learner's calendar; "now" for those due already."""
    end = user.start_of_today(now) + timedelta(days=FORECAST_DAYS)
    day = Case(
        When(due__lte=now, then=Value("now")),
        default=Cast(TruncDate("due", tzinfo=user.zone), CharField()),
        output_field=CharField(),
    )
    due = mine.filter(kind__in=MemoryState.REVIEW_KINDS, due__lt=end)
    return _part(due, "due", Value(0), day, Value(0), items=Count("pk"))


def _missed_part(questions, user, now):
    window = ReviewLog.objects.filter(memory=OuterRef("pk"), reviewed_at__gte=now - timedelta(days=MISSED_DAYS))
    answered = questions.annotate(
        n=count_of(window), n_wrong=count_of(window.filter(rating=ReviewLog.Rating.AGAIN))
    ).filter(n__gte=2, n_wrong__gte=1)
    return _part(
        answered, "missed", F("question_id"), F("question__stem"), F("question__question_set_id"),
        answers=Sum("n"), correct=Sum("n_wrong"), at_risk=Max("last_rating"),
    )


def _myths_part(mine):
    # Every Again in the drill is a time the myth was believed. `lapses` would miss most of
    # them: FSRS counts a lapse only for Again on an item already in its Review phase.
    times_believed = count_of(
        ReviewLog.objects.filter(memory=OuterRef("pk"), source=ReviewLog.Source.DRILL, rating=ReviewLog.Rating.AGAIN)
    )
    believed = mine.filter(kind=Kind.MYTH).annotate(n_believed=times_believed).filter(n_believed__gt=0)
    return _part(
        believed, "myth", F("card_id"), F("card__misconception"), F("card__deck_id"),
        answers=Max("reps"), correct=Max("n_believed"), at_risk=Max("last_rating"),
    )


def _summarise(rows, user, now):
    summary = MemorySummary()
    topics = {}
    for dim, key, name, parent, items, answers, correct, recall_sum, exam_sum, at_risk in rows:
        items, answers, correct, at_risk = (int(value or 0) for value in (items, answers, correct, at_risk))
        if dim == "due":
            if name == "now":
                summary.due_now += items
            else:
                summary.forecast[datetime.strptime(name[:10], "%Y-%m-%d").date()] = items
        elif dim == "mistakes":
            summary.mistakes = items
        elif dim == "missed":
            summary.missed.append(Problem(key, name, parent, answers, correct, believed_now=at_risk == 1))
        elif dim == "myth":
            summary.myths.append(Problem(key, name, parent, answers, correct, believed_now=at_risk == 1))
        else:
            mastery = Mastery(
                dim.removesuffix("-q").removesuffix("-c"), key, name, items, answers, correct,
                float(recall_sum or 0), float(exam_sum or 0), at_risk,
                has_questions=dim in ("set", "topic-q"), deck_id=parent or None,
            )
            if mastery.dim == "topic":
                if key in topics:
                    topics[key].merge(mastery)
                else:
                    topics[key] = mastery
            else:
                getattr(summary, mastery.dim + "s").append(mastery)
    summary.topics = list(topics.values())
    for name in ("sets", "decks", "topics"):
        getattr(summary, name).sort(key=_weakest_first)
    summary.missed.sort(key=lambda p: (-p.share_wrong, -p.answers, p.key))
    summary.missed = summary.missed[:TOP]
    summary.myths.sort(key=lambda p: (not p.believed_now, -p.wrong, p.key))
    summary.myths = summary.myths[:TOP]
    return summary


def _weakest_first(mastery):
    score = mastery.score
    return (score is None, score if score is not None else 0, mastery.name, mastery.key)


def reviews_per_day_needed(at_risk, today, exam_date):
    """A floor on the daily reviews that keep every studied item above the target on exam day.

    Each item predicted below the target on exam day needs at least one more review before it
    (a successful review raises its stability well past the days left); spread evenly over the
    days until the exam. None once the exam is today or past."""
    days = (exam_date - today).days
    if days <= 0:
        return None
    return math.ceil(at_risk / days)
