"""Item analysis of an assignment, as Moodle's quiz statistics report it: facility, the
point-biserial correlation, the top/bottom-27% discrimination index, the distractors picked,
median time per question, and each learner's predicted recall a week ahead of the assigned questions.

Learners who tie on total score are treated alike, whatever order they started in: the
point-biserial uses every learner, and the 27% groups split a tie straddling a group's edge
fractionally (each tied learner weighs the same share). A question is flagged "may be
broken" only when at least MIN_LEARNERS_TO_FLAG learners were analysed: below that, one
learner's slip moves the figures more than a broken key would.

A fixed number of queries whatever the class size; counts come from the database, and the
correlations, groups and medians are computed here over the class's answer rows.
"""

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from statistics import median

from django.db.models import Avg, Case, Count, Exists, F, JSONField, OuterRef, Q, Subquery, Sum, When

from quiz.lib.numbers import percent_of
from quiz.models import Attempt, AttemptSlot, Choice, ExcludedQuestion, MemoryState, PoolQuestion, Question
from quiz.models.kinds import normalized
from quiz.study import scheduling

# Kelley's classic split for the discrimination index: the top and bottom 27% of learners.
DISCRIMINATION_GROUP = 0.27
# Below this many learners, no flag: the standard error of a correlation is about 1/sqrt(n),
# 0.32 at ten learners, so a negative figure from fewer says little about the question.
MIN_LEARNERS_TO_FLAG = 10

@dataclass
class ChoiceStat:
    text: str
    is_correct: bool
    picked: int
    share: float
    beats_correct: bool = False  # a distractor chosen more often than the right answer


@dataclass
class Response:
    """A typed response as learners gave it (spaces and letter case aside), how many gave it, its credit %."""

    text: str
    count: int
    credit: int


@dataclass
class ItemStat:
    question: Question
    answered: int
    facility: float | None  # share correct, 0..1
    discrimination: float | None  # -1..1, upper group's facility minus lower group's
    point_biserial: float | None  # -1..1, correlation of right/wrong here with the total score
    median_seconds: float | None
    choices: list = field(default_factory=list)
    learners: int = 0  # analysed in the assignment, for the flag's minimum
    excluded: bool = False  # by the instructor, after the fact: it counts in nobody's total
    responses: list = field(default_factory=list)  # typed questions: the most frequent responses

    @property
    def looks_broken(self):
        """Strong learners do worse on it than weak ones, in a class large enough to say so."""
        if self.excluded:
            return False  # dealt with already
        return self.learners >= MIN_LEARNERS_TO_FLAG and self.point_biserial is not None and self.point_biserial < 0


@dataclass
class LearnerRecall:
    learner: object
    recall: float | None  # average predicted recall a week ahead of the assigned questions they have learnt
    items: int  # assigned questions studied
    learning: int = 0  # of which still in their (re)learning steps: no recall figure yet


def analysed_attempts(assignment):
    """Each current learner's first finished attempt: what they knew before practising the quiz."""
    first = {}
    attempts = Attempt.objects.filter(
        assignment=assignment, finished_at__isnull=False, user__enrollments__classroom=assignment.classroom
    )
    attempts = attempts.with_exclusions().order_by("started_at", "pk")
    for attempt in attempts.only("pk", "user_id", "assignment_id", "correct_count", "score", "question_count"):
        first.setdefault(attempt.user_id, attempt)
    return list(first.values())


def analyse_items(*, assignment):
    """Facility, discrimination, distractors and median time per question. Seven queries.
    Call `close_expired_attempts` on the assignment's attempts first, so expired attempts count."""
    attempts = analysed_attempts(assignment)
    answered = AttemptSlot.objects.filter(attempt__in=[a.pk for a in attempts]).values("question")
    in_set = PoolQuestion.objects.filter(pool=assignment.pool, question=OuterRef("pk"))
    excluded = ExcludedQuestion.objects.filter(assignment=assignment, question=OuterRef("pk"))
    # The set's questions in its order, then any since removed from it that learners answered.
    questions = list(
        Question.objects.filter(Q(pool_entries__pool=assignment.pool) | Q(pk__in=answered))
        .distinct()
        .annotate(set_position=Subquery(in_set.values("position")[:1]), is_excluded=Exists(excluded))
        .order_by(F("set_position").asc(nulls_last=True), "pk")
    )
    choices = defaultdict(list)
    for choice in Choice.objects.filter(question__in=questions).order_by("position"):
        choices[choice.question_id].append(choice)
    slots = AttemptSlot.objects.filter(attempt__in=[a.pk for a in attempts], answered_at__isnull=False)

    # Facility is the mean credit: a share of the mark for a partly right answer, as Moodle counts it.
    facility = {row["question"]: row for row in slots.values("question").annotate(n=Count("pk"), right=Sum("credit"))}
    picks = Counter(
        {
            (row["question"], row["chosen_choice"]): row["n"]
            for row in slots.values("question", "chosen_choice").annotate(n=Count("pk"))
        }
    )
    times, responses = defaultdict(list), defaultdict(Counter)
    # Answers with several picks name no one choice: their picks come from their snapshot, read with
    # the time spent (the snapshot only for them), and each option picked counts once. Typed answers
    # are counted as typed (spaces and letter case aside), for Moodle's response analysis.
    several = Case(When(chosen_numbers__isnull=False, then=F("shown_choices")), default=None, output_field=JSONField())
    # A matching answer's numbers are the option picked for each item: each right pair counts for its item.
    rows = slots.values_list("question", "seconds_spent", "chosen_numbers", several, "shown_options", "typed_answer", "credit")
    for question_id, seconds, numbers, shown, options, typed, credit in rows:
        if seconds is not None:
            times[question_id].append(seconds)
        if options is not None:
            for item, pick in zip(shown, numbers or []):
                picks[(question_id, item["id"])] += options[pick - 1] == item["match"]
            continue
        for number in numbers or []:
            picks[(question_id, shown[number - 1]["id"])] += 1
        if typed is not None:
            responses[question_id][(normalized(typed), credit)] += 1
    # An attempt none of whose questions count has no total to rank it by.
    correlations = _discrimination([attempt for attempt in attempts if attempt.counted_questions])
    return [
        _item(q, facility.get(q.pk), choices[q.pk], picks, times[q.pk], correlations.get(q.pk, {}), len(attempts),
              _most_frequent(responses[q.pk]))
        for q in questions
    ]


def _total(attempt):
    """The attempt's score as a share, without the questions excluded from the assignment."""
    return float(attempt.counted_points) / attempt.counted_questions if attempt.counted_questions else 0


def _discrimination(attempts):
    """Per question, the point-biserial and the 27% discrimination index.

    One read of the analysed attempts' answers (bounded by the class, a few thousand rows),
    counted here: filtering the whole answer table by a list of groups made PostgreSQL scan it."""
    if len(attempts) < 2:
        return {}
    totals = {a.pk: _total(a) for a in attempts}
    upper, lower = _group_weights(totals)
    answers = defaultdict(list)  # question -> [(attempt, credit 0..1)]
    rows = AttemptSlot.objects.filter(attempt__in=sorted(totals), answered_at__isnull=False)
    for attempt_id, question_id, credit in rows.values_list("attempt_id", "question_id", "credit"):
        answers[question_id].append((attempt_id, float(credit)))
    return {
        question: {
            "point_biserial": _point_biserial([(totals[a], right) for a, right in given]),
            "discrimination": _index(given, upper, lower),
        }
        for question, given in answers.items()
    }


def _group_weights(totals):
    """How much of each attempt falls in the top and in the bottom 27% by total score: 1 inside
    a group, 0 outside, and for a tie straddling a group's edge the same share for each."""
    size = DISCRIMINATION_GROUP * len(totals)

    def fill(scores_in_order):
        weights, room = {}, size
        by_score = defaultdict(list)
        for attempt_id, score in totals.items():
            by_score[score].append(attempt_id)
        for score in scores_in_order(by_score):
            tied = by_score[score]
            share = min(len(tied), max(room, 0)) / len(tied)
            weights.update(dict.fromkeys(tied, share))
            room -= len(tied)
        return weights

    return fill(lambda s: sorted(s, reverse=True)), fill(sorted)


def _index(given, upper, lower):
    """Upper group's facility minus the lower group's, each weighted by `_group_weights`;
    `given` holds (attempt, credit) for each answer to the question."""
    facility = []
    for weights in (upper, lower):
        answered = sum(weights[a] for a, _ in given)
        if not answered:
            return None
        facility.append(sum(weights[a] * credit for a, credit in given) / answered)
    return round(facility[0] - facility[1], 2)


def _point_biserial(pairs):
    """Pearson's correlation between the credit on the question (1 or 0, or a share under
    partial credit) and the total score, over the learners who answered it: for right/wrong
    answers, the point-biserial. None when either side has no spread."""
    n = len(pairs)
    totals, credits = [total for total, _ in pairs], [credit for _, credit in pairs]
    mean_total, mean_credit = sum(totals) / n, sum(credits) / n
    spread_total = math.sqrt(sum((total - mean_total) ** 2 for total in totals) / n)
    spread_credit = math.sqrt(sum((credit - mean_credit) ** 2 for credit in credits) / n)
    if spread_total < 1e-12 or spread_credit < 1e-12:
        return None
    covariance = sum((total - mean_total) * (credit - mean_credit) for total, credit in pairs) / n
    return covariance / (spread_total * spread_credit)


# How many of a typed question's most frequent responses item analysis lists.
RESPONSES_SHOWN = 10


def _most_frequent(counted):
    """[Response] of one typed question, the most given first (then by text), at most RESPONSES_SHOWN."""
    ordered = sorted(counted.items(), key=lambda pair: (-pair[1], pair[0][0]))
    return [Response(text, count, percent_of(credit)) for (text, credit), count in ordered[:RESPONSES_SHOWN]]


def _item(question, counts, choices, picks, times, correlations, learners, responses=()):
    answered = counts["n"] if counts else 0
    matching = question.kind == Question.Kind.MATCHING
    if matching:  # per pair: how many matched each item right (extra options pair with nothing)
        choices = [c for c in choices if c.text]
    stats = [
        ChoiceStat(
            text=f"{c.text} → {c.match}" if matching else c.text,
            is_correct=c.is_correct,
            picked=picks.get((question.pk, c.pk), 0),
            share=picks.get((question.pk, c.pk), 0) / answered if answered else 0,
        )
        for c in choices
    ]
    # A distractor "beats" the answer when picked more often than it (than the least picked right
    # one, for the kinds with several).
    right_picks = min((s.picked for s in stats if s.is_correct), default=0)
    for stat in stats:
        stat.beats_correct = not matching and not stat.is_correct and stat.picked > right_picks
    return ItemStat(
        question=question,
        answered=answered,
        facility=float(counts["right"] or 0) / answered if answered else None,
        discrimination=correlations.get("discrimination"),
        point_biserial=correlations.get("point_biserial"),
        median_seconds=median(times) if times else None,
        choices=stats,
        learners=learners,
        excluded=question.is_excluded,
        responses=list(responses),
    )


def recall_by_learner(*, assignment, now):
    """Each learner's average predicted recall a week ahead (FSRS with their own curve, `scheduling.RECALL_AHEAD`) of the
    assignment's questions they have learnt, and how many are still in their learning steps: recall
    "today" is 100% right after any answer, even a wrong one. One query for the roster and one
    aggregate over the memory table."""
    learners = [e.learner for e in assignment.classroom.enrollments.select_related("learner").order_by("learner__username")]
    learning = Q(phase__in=MemoryState.LEARNING_PHASES)
    rows = (
        MemoryState.objects.filter(
            user__in=[learner.pk for learner in learners],
            kind=MemoryState.Kind.QUESTION,
            question__pool_entries__pool=assignment.pool,
            last_review__isnull=False,
        )
        .values("user")
        .annotate(
            recall=Avg(scheduling.recall_expression_per_learner(now + scheduling.RECALL_AHEAD), filter=~learning),
            items=Count("pk"),
            learning=Count("pk", filter=learning),
        )
    )
    by_learner = {row["user"]: row for row in rows}
    empty = {"recall": None, "items": 0, "learning": 0}
    recalls = (
        LearnerRecall(learner, **{name: by_learner.get(learner.pk, empty)[name] for name in empty}) for learner in learners
    )
    # Lowest first; a learner with every studied question still in learning before anyone with a figure.
    return sorted(recalls, key=lambda r: (r.items == 0, r.recall is not None, r.recall or 0))


SORTABLE = {"position", "facility", "point_biserial", "discrimination", "answered"}


def sorted_items(items, sort):
    """Items by `sort` (a SORTABLE name, "-" first for descending; the set's order otherwise),
    questions without the figure last either way."""
    key = sort.lstrip("-")
    if key not in SORTABLE or key == "position":
        return list(reversed(items)) if sort == "-position" else list(items)
    present = [item for item in items if getattr(item, key) is not None]
    missing = [item for item in items if getattr(item, key) is None]
    return sorted(present, key=lambda item: getattr(item, key), reverse=sort.startswith("-")) + missing
