"""The class gradebook: each learner's counted score and status per assignment, and the
grading rules (best, first, last attempt or the average) that pick what counts.

A fixed number of queries whatever the class size; only what SQL cannot say portably (a
median, the grading rule's pick among a learner's attempts) is done here over those rows.
"""

from collections import defaultdict
from dataclasses import dataclass
from statistics import median

from quiz.models import Assignment, AssignmentOverride, Attempt

from .rules import Status, status_of

Grading = Assignment.Grading


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


def build_gradebook(*, classroom, now, sort="name"):
    """Learners by assignments with the counted score and status of each cell. Four queries.
    Call `close_expired_attempts` on the class's attempts first, so expired attempts count as finished."""
    learners = [e.learner for e in classroom.enrollments.select_related("learner").order_by("learner__username")]
    assignments = list(classroom.assignments.select_related("pool"))
    overrides = {
        (o.assignment_id, o.learner_id): o for o in AssignmentOverride.objects.filter(assignment__classroom=classroom)
    }
    attempts = defaultdict(list)
    # By the ids already read, not joins through the class: the planner then estimates the
    # class's attempts, not the whole table's (100k rows guessed at 1M answers, three times slower).
    rows = Attempt.objects.filter(assignment__in=[a.pk for a in assignments], user__in=[u.pk for u in learners])
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
    return round(sum(picked) / len(picked)) if picked else None
