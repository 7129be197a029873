"""Item analysis of an assignment, as Moodle's quiz statistics report it: facility,
discrimination, the distractors picked, median time per question, and each learner's
predicted recall of the assigned questions.

A fixed number of queries whatever the class size; counts come from the database, and only
the top and bottom 27% groups and medians are computed here over those rows.
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field
from statistics import median

from django.db.models import Avg, Count, F, OuterRef, Q, Subquery

from quiz.models import Attempt, AttemptSlot, Choice, MemoryState, PoolQuestion, Question
from quiz.study import scheduling

# Kelley's classic split for the discrimination index: the top and bottom 27% of learners.
DISCRIMINATION_GROUP = 0.27

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


def analyse_items(*, assignment):
    """Facility, discrimination, distractors and median time per question. Seven queries.
    Call `close_expired_attempts` on the assignment's attempts first, so expired attempts count."""
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
    group_facility = _group_facility(upper, lower)

    return [
        _item(q, facility.get(q.pk), choices[q.pk], picks, times[q.pk], group_facility.get(q.pk, {})) for q in questions
    ]


def _extreme_groups(attempts):
    if len(attempts) < 2:
        return set(), set()
    ranked = sorted(attempts, key=lambda a: (a.correct_count / a.question_count if a.question_count else 0, a.pk))
    size = max(1, math.ceil(DISCRIMINATION_GROUP * len(ranked)))
    return {a.pk for a in ranked[-size:]}, {a.pk for a in ranked[:size]}


def _group_facility(upper, lower):
    """Per question, the share correct within the upper and within the lower group.

    One read of the two groups' answers (bounded by the class, a few thousand rows), counted
    here: filtering the whole answer table by both id lists at once made PostgreSQL scan it."""
    if not upper:
        return {}
    counts = defaultdict(lambda: [0, 0, 0, 0])  # upper answered, upper right, lower answered, lower right
    rows = AttemptSlot.objects.filter(attempt__in=sorted(upper | lower), answered_at__isnull=False)
    for attempt_id, question_id, right in rows.values_list("attempt_id", "question_id", "is_correct"):
        offset = 0 if attempt_id in upper else 2
        counts[question_id][offset] += 1
        counts[question_id][offset + 1] += bool(right)
    return {
        question: {"discrimination": round(upper_right / upper_n - lower_right / lower_n, 2)}
        for question, (upper_n, upper_right, lower_n, lower_right) in counts.items()
        if upper_n and lower_n
    }


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
