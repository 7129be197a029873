"""What the learner knows, computed by the database from their memory states.

`memory_summary` runs seven queries whatever the size of the learner's history. Each reads
the learner's memory states (one row per studied item, reached through the indexes that
start with the user), so each is bounded by the size of the content, never by the number
of answers; the answers themselves are counted per item through the review log's
(memory, reviewed_at) index:

* mastery per question set, per deck and per topic, one grouped query each: accuracy of
  recent answers, average predicted recall a week ahead (or on exam day), items still being
  learnt, items at risk on exam day;
* the mistakes: questions last answered wrong, as "Retake my mistakes" picks them;
* the most-missed questions, and the most-believed myths;
* the due forecast: items due now, and items falling due on each of the next days.

Why "recall in 7 days" and not "recall now": right after any review FSRS predicts a recall of
1 (no time has passed), so "recall now" read 100% after seven wrong answers out of seven.
Recall a week ahead (or on the learner's exam day) says something; and an item still in its
(re)learning steps (just got wrong, or seen once) has no settled memory yet, so it is counted
as "learning" and kept out of the recall average instead of being given a percentage.

Flashcards and questions are the items; a card's two drill statements (myth and fact) are
counted apart, as statements, so a 3-card deck shows 3 cards, as "due now" counts them.

Predicted recall is FSRS's forgetting curve, computed in SQL by
`scheduling.recall_expression` with the scheduler's own parameters, so the dashboard and
the study pages agree.

Keyword-only functions with an explicit `now`, so tests run on a fixed clock.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models import Count, F, Min, OuterRef, Q, Sum
from django.db.models.functions import Coalesce
from django.db.models.lookups import LessThan

from quiz.content.markup import text_of
from quiz.lib.days import start_of_day
from quiz.models import MemoryState, Question, ReviewLog, count_of
from quiz.study import scheduling

from .activity import EPOCH, local_day_number

Kind = MemoryState.Kind
AGAIN = ReviewLog.Rating.AGAIN

RECENT_DAYS = 30  # accuracy of "recent answers"
MISSED_DAYS = 90  # window for the most-missed questions
FORECAST_DAYS = 30
TOP = 5  # most-missed questions and most-believed myths shown
AHEAD = scheduling.RECALL_AHEAD  # how far ahead "recall" looks when the learner has no exam date
UNITS = {"set": "question", "deck": "card", "topic": "item"}


@dataclass
class Mastery:
    """One set, deck or topic: how well the learner knows it."""

    dim: str  # "set", "deck" or "topic"
    key: int
    name: str
    items: int = 0  # studied questions and flashcards (drill statements are `statements`)
    learning: int = 0  # of which still in their (re)learning steps: no recall figure yet
    answers: int = 0  # answers in the last RECENT_DAYS
    correct: int = 0
    recall_sum: float = 0.0  # predicted recall at the horizon, summed over the learnt items
    exam_sum: float = 0.0  # predicted recall on exam day, summed over every studied item
    statements: int = 0  # myth and fact statements drilled
    at_risk: int = 0  # items predicted below the target on exam day
    has_questions: bool = False
    deck_id: int | None = None  # for a topic with cards only: where to study it

    @property
    def accuracy(self):
        return self.correct / self.answers if self.answers else None

    @property
    def learnt(self):
        """Studied items past their learning steps: those with a recall figure."""
        return self.items - self.learning

    @property
    def recall(self):
        """Mean predicted recall at the horizon (a week ahead or exam day) of the learnt items."""
        return self.recall_sum / self.learnt if self.learnt else None

    @property
    def unit(self):
        return UNITS[self.dim]

    @property
    def score(self):
        """What "weakest first" sorts by: predicted recall, or accuracy before any recall exists."""
        return self.recall if self.recall is not None else self.accuracy


@dataclass
class Problem:
    """A most-missed question or a most-believed myth."""

    key: int
    text: str  # as plain text (quiz.content.markup.text_of): the page cuts it short
    parent: int  # the question's set, the myth's deck
    answers: int
    wrong: int
    believed_now: bool = False

    @property
    def share_wrong(self):
        return self.wrong / self.answers if self.answers else 0


@dataclass
class MemorySummary:
    due_now: int = 0  # MemoryStateQuerySet.due: learning steps and reviews, split below
    due_learning: int = 0
    mistakes: int = 0
    forecast: dict = field(default_factory=dict)  # {date: count} for the next FORECAST_DAYS days
    sets: list = field(default_factory=list)
    decks: list = field(default_factory=list)
    topics: list = field(default_factory=list)
    missed: list = field(default_factory=list)
    myths: list = field(default_factory=list)


def memory_summary(*, user, now, exam_moment=None, target=0.9, horizon=None, held=None):
    """Everything the dashboard reads from the memory table (see the module doc for the queries).
    `horizon`: the moment "recall" predicts (a week from now unless given); `held`: the ids of
    the questions held back from the learner now (`Question.objects.held_back_ids`), read once
    and given to each query as a list (read here when not given)."""
    # Questions an assignment holds back are out of every figure, as they are out of the queue.
    if held is None:
        held = Question.objects.held_back_ids(user, now)
    mine = MemoryState.objects.for_user(user)
    if held:
        mine = mine.exclude(question__in=held)
    numbers = _mastery_numbers(now, horizon or now + AHEAD, exam_moment, target, scheduling.parameters_of(user))
    summary = MemorySummary(
        sets=_set_mastery(mine, numbers),
        decks=_deck_mastery(mine, numbers),
        topics=_topic_mastery(mine, numbers),
        mistakes=mine.last_answered_wrong().count(),
        missed=_most_missed(mine, now),
        myths=_most_believed_myths(mine),
    )
    summary.due_now, summary.due_learning, summary.forecast = _due_forecast(mine, user, now)
    return summary


# --- Mastery per set, deck and topic ---------------------------------------------------------------

def _mastery_numbers(now, horizon, exam_moment, target, parameters):
    """The aggregates of a group of memory states, named as Mastery's fields."""
    recent = ReviewLog.objects.filter(memory=OuterRef("pk"), reviewed_at__gte=now - timedelta(days=RECENT_DAYS))
    items = Q(kind__in=MemoryState.REVIEW_KINDS)  # a drill statement is counted apart
    # A row without a stability has no recall estimate yet; its answers still count.
    studied = items & Q(last_review__isnull=False, stability__gt=0)
    learning = studied & Q(phase__in=MemoryState.LEARNING_PHASES)
    learnt = studied & ~Q(phase__in=MemoryState.LEARNING_PHASES)
    numbers = {
        "items": Count("pk", filter=studied),
        "learning": Count("pk", filter=learning),
        "statements": Count("pk", filter=Q(kind__in=(Kind.MYTH, Kind.FACT))),
        # Answers are counted per item in a subquery: joining the log would repeat each item
        # once per answer and inflate the recall sums.
        "answers": Coalesce(Sum(count_of(recent), filter=items), 0),
        "correct": Coalesce(Sum(count_of(recent.filter(rating__gt=AGAIN)), filter=items), 0),
        "recall_sum": Coalesce(Sum(scheduling.recall_expression(horizon, parameters), filter=learnt), 0.0),
    }
    if exam_moment is not None:
        exam_recall = scheduling.recall_expression(exam_moment, parameters)
        numbers["exam_sum"] = Coalesce(Sum(exam_recall, filter=studied), 0.0)
        numbers["at_risk"] = Count("pk", filter=studied & LessThan(exam_recall, target))
    return numbers


NUMBERS = ("items", "learning", "statements", "answers", "correct", "recall_sum", "exam_sum", "at_risk")


def _mastery(dim, key, name, row, **extra):
    """A Mastery from one grouped row (without an exam date, its exam numbers stay zero)."""
    numbers = {column: row[column] for column in NUMBERS if column in row}
    return Mastery(dim, key, name, **numbers, **extra)


def _set_mastery(mine, numbers):
    # Current questions only, as a set's question count has them: a retired question's memory
    # would put the exam outlook's predicted score over 100%.
    rows = (
        mine.filter(kind=Kind.QUESTION, question__retired_at__isnull=True)
        .values(set_id=F("question__question_set"), title=F("question__question_set__title"))
        .annotate(**numbers)
    )
    return sorted(
        (_mastery("set", row["set_id"], row["title"], row, has_questions=True) for row in rows), key=_weakest_first
    )


def _deck_mastery(mine, numbers):
    # A deck's drill statements (myths and facts) are read too, to be counted apart from its cards.
    rows = (
        mine.filter(kind__in=MemoryState.CARD_KINDS, card__retired_at__isnull=True)
        .values(deck_id=F("card__deck"), title=F("card__deck__title"))
        .annotate(**numbers)
    )
    return sorted((_mastery("deck", row["deck_id"], row["title"], row) for row in rows), key=_weakest_first)


def _topic_mastery(mine, numbers):
    # An item is a question or a card, never both, so the outer joins to both topic tables
    # find one item's topics on one side only: a topic's group holds each of its questions
    # and cards once, never a question paired with a card.
    rows = (
        mine.values(
            topic_id=Coalesce("question__topics", "card__topics"),
            topic=Coalesce("question__topics__name", "card__topics__name"),
        )
        .filter(topic_id__isnull=False)
        .annotate(
            **numbers,
            questions=Count("pk", filter=Q(kind=Kind.QUESTION)),
            first_deck=Min("card__deck"),  # where "Practise" goes for a topic without questions
        )
    )
    topics = (
        _mastery(
            "topic", row["topic_id"], row["topic"], row,
            has_questions=row["questions"] > 0, deck_id=row["first_deck"],
        )
        for row in rows
    )
    return sorted(topics, key=_weakest_first)


def _weakest_first(mastery):
    score = mastery.score
    return (score is None, score if score is not None else 0, mastery.name, mastery.key)


# --- Due forecast ------------------------------------------------------------------------------------

def _due_forecast(mine, user, now):
    """(items due now, of which learning steps, {date: items falling due that day}) over the
    learner's next FORECAST_DAYS days.

    Flashcards and questions only: what "Review due" studies; drill statements have their own drill."""
    end = start_of_day(now.astimezone(user.zone).date() + timedelta(days=FORECAST_DAYS), user.zone)
    # Overdue rows fall in the zone's first period: their day does not matter, only that they are due.
    day = local_day_number("due", user.zone, now, end)
    rows = list(
        mine.filter(kind__in=MemoryState.REVIEW_KINDS, due__lt=end)
        .order_by()
        .values(day=day)
        .annotate(
            overdue=Count("pk", filter=Q(due__lte=now)),
            learning=Count("pk", filter=Q(due__lte=now, phase__in=MemoryState.LEARNING_PHASES)),
            upcoming=Count("pk", filter=Q(due__gt=now)),
        )
    )
    due_now, learning = sum(row["overdue"] for row in rows), sum(row["learning"] for row in rows)
    return due_now, learning, {EPOCH + timedelta(days=int(row["day"])): row["upcoming"] for row in rows if row["upcoming"]}


# --- Problem items -----------------------------------------------------------------------------------

def _most_missed(mine, now):
    """The TOP questions with the largest share of wrong answers in the last MISSED_DAYS days,
    among those answered at least twice and wrong at least once."""
    window = ReviewLog.objects.filter(memory=OuterRef("pk"), reviewed_at__gte=now - timedelta(days=MISSED_DAYS))
    rows = (
        mine.filter(kind=Kind.QUESTION)
        .annotate(answers=count_of(window), wrong=count_of(window.filter(rating=AGAIN)))
        .filter(answers__gte=2, wrong__gte=1)
        .values(
            "answers", "wrong", "last_rating",
            question_key=F("question"), stem=F("question__stem"), set_id=F("question__question_set"),
            markup=F("question__markup"),
        )
    )
    missed = [
        Problem(
            row["question_key"], text_of(row["stem"], row["markup"]), row["set_id"], row["answers"], row["wrong"],
            believed_now=row["last_rating"] == AGAIN,
        )
        for row in rows
    ]
    missed.sort(key=lambda p: (-p.share_wrong, -p.answers, p.key))
    return missed[:TOP]


def _most_believed_myths(mine):
    """The TOP myths believed most often, those believed at the last drill first."""
    # Every Again in the drill is a time the myth was believed. `lapses` would miss most of
    # them: FSRS counts a lapse only for Again on an item already in its Review phase.
    times_believed = count_of(
        ReviewLog.objects.filter(memory=OuterRef("pk"), source=ReviewLog.Source.DRILL, rating=AGAIN)
    )
    rows = (
        mine.filter(kind=Kind.MYTH)
        .annotate(believed=times_believed)
        .filter(believed__gt=0)
        .values(
            "reps", "believed", "last_rating",
            card_key=F("card"), myth=F("card__misconception"), deck_id=F("card__deck"), markup=F("card__markup"),
        )
    )
    myths = [
        Problem(
            row["card_key"], text_of(row["myth"], row["markup"]), row["deck_id"], row["reps"], row["believed"],
            believed_now=row["last_rating"] == AGAIN,
        )
        for row in rows
    ]
    myths.sort(key=lambda p: (not p.believed_now, -p.wrong, p.key))
    return myths[:TOP]


# --- Exam outlook ------------------------------------------------------------------------------------
