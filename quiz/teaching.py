"""What an instructor reads: the class gradebook and the item analysis of an assignment.

Each is a fixed number of queries whatever the class size; counts and sums come from the
database, and only what SQL cannot say portably (a median, the grading rule's pick among
a learner's attempts, top and bottom 27% groups) is done here over those rows.
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field
from statistics import median

from django.db.models import Avg, Count, F, OuterRef, Q, Subquery

from . import scheduling
from .assignments import Status, counted, counted_score, status_of
from .models import (
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Choice,
    MemoryState,
    Question,
    PoolQuestion,
)

# Kelley's classic split for the discrimination index: the top and bottom 27% of learners.
DISCRIMINATION_GROUP = 0.27


# --- Gradebook -----------------------------------------------------------------------------------

@dataclass
class Cell:
    assignment: object
    learner: object
    score: int | None
    status: str
    attempts: int
    finished: int = 0
    late: bool = False  # the attempt that counts (any, for an average) was submitted late


@dataclass
class Column:
    assignment: object
    average: float | None
    median: float | None
    completion: int  # percent of learners with a finished attempt


@dataclass
class Gradebook:
    columns: list
    rows: list  # of (learner, [Cell, ...]) in the requested order


def gradebook(*, classroom, now, sort="name"):
    """Learners by assignments with the counted score and status of each cell. Five queries."""
    Attempt.objects.filter(assignment__classroom=classroom).close_expired(now)
    learners = [e.learner for e in classroom.enrollments.select_related("learner").order_by("learner__username")]
    assignments = list(classroom.assignments.select_related("pool"))
    overrides = {
        (o.assignment_id, o.learner_id): o for o in AssignmentOverride.objects.filter(assignment__classroom=classroom)
    }
    attempts = defaultdict(list)
    rows = Attempt.objects.filter(assignment__classroom=classroom, user__enrollments__classroom=classroom)
    for attempt in rows.order_by("started_at").only(
        "pk", "user_id", "assignment_id", "correct_count", "question_count", "finished_at", "is_late"
    ):
        attempts[attempt.user_id, attempt.assignment_id].append(attempt)

    grid = []
    for learner in learners:
        cells = [_cell(a, learner, attempts[learner.pk, a.pk], overrides.get((a.pk, learner.pk)), now) for a in assignments]
        grid.append((learner, cells))
    columns = [_column(a, [cells[i] for _, cells in grid]) for i, a in enumerate(assignments)]
    return Gradebook(columns=columns, rows=_sorted(grid, assignments, sort))


def _cell(assignment, learner, attempts, override, now):
    finished = [a for a in attempts if a.finished_at is not None]
    open_attempt = next((a.pk for a in attempts if a.finished_at is None), None)
    on_time = sum(1 for a in finished if not a.is_late)
    status = status_of(assignment.rules_for(override), len(finished), on_time, open_attempt, now)
    score = counted_score([a.score_percent for a in finished], assignment.grading)
    late = any(a.is_late for a in counted(finished, assignment.grading, score=lambda a: a.score_percent))
    if late and status == Status.SUBMITTED:
        status = Status.LATE
    return Cell(assignment, learner, score, status, len(attempts), finished=len(finished), late=late)


def _column(assignment, cells):
    scores = [cell.score for cell in cells if cell.score is not None]
    done = sum(1 for cell in cells if cell.finished)  # retrying after a submission still counts
    return Column(
        assignment=assignment,
        average=round(sum(scores) / len(scores), 1) if scores else None,
        median=median(scores) if scores else None,
        completion=round(100 * done / len(cells)) if cells else 0,
    )


def _sorted(grid, assignments, sort):
    """`name`, `-name`, or an assignment id (best scores first; `-id` for lowest first)."""
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    index = next((i for i, a in enumerate(assignments) if str(a.pk) == key), None)
    if index is None:
        return sorted(grid, key=lambda row: row[0].username.lower(), reverse=descending)

    def by_score(row):
        score = row[1][index].score
        return (score is None, -(score or 0) if not descending else (score or 0), row[0].username.lower())

    return sorted(grid, key=by_score)


# --- Item analysis --------------------------------------------------------------------------------

@dataclass
class ChoiceStat:
    text: str
    is_correct: bool
    picked: int
    share: float
    beats_correct: bool = False  # a distractor chosen more often than the right answer


@dataclass
class ItemStat:
    question: Question
    answered: int
    facility: float | None  # share correct, 0..1
    discrimination: float | None  # -1..1, upper group's facility minus lower group's
    median_seconds: float | None
    choices: list = field(default_factory=list)

    @property
    def looks_broken(self):
        return self.discrimination is not None and self.discrimination < 0


@dataclass
class LearnerRecall:
    learner: object
    recall: float | None  # average predicted recall today of the assigned questions
    items: int


def analysed_attempts(assignment):
    """Each current learner's first finished attempt: what they knew before practising the quiz."""
    first = {}
    attempts = Attempt.objects.filter(
        assignment=assignment, finished_at__isnull=False, user__enrollments__classroom=assignment.classroom
    )
    for attempt in attempts.order_by("started_at").only("pk", "user_id", "correct_count", "question_count"):
        first.setdefault(attempt.user_id, attempt)
    return list(first.values())


def item_analysis(*, assignment):
    """Facility, discrimination, distractors and median time per question. Eight queries."""
    Attempt.objects.filter(assignment=assignment).close_expired()
    attempts = analysed_attempts(assignment)
    answered = AttemptSlot.objects.filter(attempt__in=[a.pk for a in attempts]).values("question")
    in_set = PoolQuestion.objects.filter(pool=assignment.pool, question=OuterRef("pk"))
    # The set's questions in its order, then any since removed from it that learners answered.
    questions = list(
        Question.objects.filter(Q(pool_entries__pool=assignment.pool) | Q(pk__in=answered))
        .distinct()
        .annotate(set_position=Subquery(in_set.values("position")[:1]))
        .order_by(F("set_position").asc(nulls_last=True), "pk")
    )
    choices = defaultdict(list)
    for choice in Choice.objects.filter(question__in=questions).order_by("position"):
        choices[choice.question_id].append(choice)
    slots = AttemptSlot.objects.filter(attempt__in=[a.pk for a in attempts], answered_at__isnull=False)

    facility = {
        row["question"]: row
        for row in slots.values("question").annotate(n=Count("pk"), right=Count("pk", filter=Q(is_correct=True)))
    }
    picks = {
        (row["question"], row["chosen_choice"]): row["n"]
        for row in slots.values("question", "chosen_choice").annotate(n=Count("pk"))
    }
    times = defaultdict(list)
    for question_id, seconds in slots.exclude(seconds_spent=None).values_list("question", "seconds_spent"):
        times[question_id].append(seconds)
    upper, lower = _extreme_groups(attempts)
    group_facility = _group_facility(slots, upper, lower)

    return [
        _item(q, facility.get(q.pk), choices[q.pk], picks, times[q.pk], group_facility.get(q.pk, {})) for q in questions
    ]


def _extreme_groups(attempts):
    if len(attempts) < 2:
        return set(), set()
    ranked = sorted(attempts, key=lambda a: (a.correct_count / a.question_count if a.question_count else 0, a.pk))
    size = max(1, math.ceil(DISCRIMINATION_GROUP * len(ranked)))
    return {a.pk for a in ranked[-size:]}, {a.pk for a in ranked[:size]}


def _group_facility(slots, upper, lower):
    """Per question, the share correct within the upper and within the lower group."""
    if not upper:
        return {}
    rows = (
        slots.filter(attempt__in=upper | lower)
        .values("question")
        .annotate(
            upper_n=Count("pk", filter=Q(attempt__in=upper)),
            upper_right=Count("pk", filter=Q(attempt__in=upper, is_correct=True)),
            lower_n=Count("pk", filter=Q(attempt__in=lower)),
            lower_right=Count("pk", filter=Q(attempt__in=lower, is_correct=True)),
        )
    )
    result = {}
    for row in rows:
        if row["upper_n"] and row["lower_n"]:
            result[row["question"]] = row["upper_right"] / row["upper_n"] - row["lower_right"] / row["lower_n"]
    return {question: {"discrimination": round(value, 2)} for question, value in result.items()}


def _item(question, counts, choices, picks, times, groups):
    answered = counts["n"] if counts else 0
    stats = [
        ChoiceStat(
            text=c.text,
            is_correct=c.is_correct,
            picked=picks.get((question.pk, c.pk), 0),
            share=picks.get((question.pk, c.pk), 0) / answered if answered else 0,
        )
        for c in choices
    ]
    right_picks = next((s.picked for s in stats if s.is_correct), 0)
    for stat in stats:
        stat.beats_correct = not stat.is_correct and stat.picked > right_picks
    return ItemStat(
        question=question,
        answered=answered,
        facility=counts["right"] / answered if answered else None,
        discrimination=groups.get("discrimination"),
        median_seconds=median(times) if times else None,
        choices=stats,
    )


def recall_by_learner(*, assignment, now):
    """Each learner's average predicted recall today (FSRS) of the assignment's questions. One query
    for the roster and one aggregate over the memory table."""
    learners = [e.learner for e in assignment.classroom.enrollments.select_related("learner").order_by("learner__username")]
    rows = (
        MemoryState.objects.filter(
            user__in=[learner.pk for learner in learners],
            kind=MemoryState.Kind.QUESTION,
            question__pool_entries__pool=assignment.pool,
            last_review__isnull=False,
        )
        .values("user")
        .annotate(recall=Avg(scheduling.recall_expression(now)), items=Count("pk"))
    )
    by_learner = {row["user"]: row for row in rows}
    return sorted(
        (
            LearnerRecall(learner, by_learner.get(learner.pk, {}).get("recall"), by_learner.get(learner.pk, {}).get("items", 0))
            for learner in learners
        ),
        key=lambda r: (r.recall is None, r.recall if r.recall is not None else 0),
    )
