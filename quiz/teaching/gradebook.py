"""The class gradebook: each learner's counted score and status per assignment, by the one
rule the learner's own pages use too (`standing.standing_of`).

A fixed number of queries whatever the class size; only what SQL cannot say portably (a
median, the grading rule's pick among a learner's attempts) is done here over those rows.

A class that is an LMS course's (quiz.lti) also lists the course's learners who have not launched
yet, from its synced roster (quiz.lti.roster): by name, after the learners whatever the sort (they
have no score to sort by, and the instructor finds who is missing in one place), a dash in each
cell. They are not learners here: no column's average, median or completion counts them.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import median

from quiz.lib.numbers import percent
from quiz.lti.roster import lms_roster
from quiz.models import AssignmentOverride, Attempt

from .standing import standing_of


@dataclass
class Cell:
    assignment: object
    learner: object
    score: int | None
    status: str
    attempts: int
    finished: int = 0
    late: bool = False  # the attempt that counts (any, for an average) was submitted late
    counts: bool = True  # in the column's completion (see _counts)


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
    not_launched: list = field(default_factory=list)  # quiz.lti.roster.RosterEntry, by name: after the rows
    left_lms: frozenset = frozenset()  # ids of learners no longer in the class's LMS course (still learners here)


def build_gradebook(*, classroom, now, sort="name"):
    """Learners by assignments with the counted score and status of each cell, and the LMS
    course's learners not launched yet. Five queries.
    Call `close_expired_attempts` on the class's attempts first, so expired attempts count as finished."""
    learners = [e.learner for e in classroom.enrollments.select_related("learner").order_by("learner__username")]
    assignments = list(classroom.assignments.active().select_related("pool"))
    overrides = {
        (o.assignment_id, o.learner_id): o for o in AssignmentOverride.objects.filter(assignment__classroom=classroom)
    }
    attempts = defaultdict(list)
    # By the ids already read, not joins through the class: the planner then estimates the
    # class's attempts, not the whole table's (100k rows guessed at 1M answers, three times slower).
    rows = Attempt.objects.filter(assignment__in=[a.pk for a in assignments], user__in=[u.pk for u in learners])
    rows = rows.with_exclusions()  # a question excluded after the fact counts for no one
    for attempt in rows.order_by("started_at", "pk").only(
        "pk", "user_id", "assignment_id", "correct_count", "score", "question_count", "finished_at"
    ):
        attempts[attempt.user_id, attempt.assignment_id].append(attempt)

    grid = []
    for learner in learners:
        cells = [_cell(a, learner, attempts[learner.pk, a.pk], overrides.get((a.pk, learner.pk)), now) for a in assignments]
        grid.append((learner, cells))
    columns = [_column(a, [cells[i] for _, cells in grid]) for i, a in enumerate(assignments)]
    roster = lms_roster(classroom)
    return Gradebook(columns=columns, rows=_sorted(grid, assignments, sort), not_launched=roster.not_launched,
                     left_lms=roster.left)


def _cell(assignment, learner, attempts, override, now):
    rules = assignment.rules_for(override)
    standing = standing_of(attempts=attempts, rules=rules, grading=assignment.grading, now=now)
    return Cell(
        assignment, learner, standing.score, standing.status, len(attempts), finished=standing.finished, late=standing.late,
        counts=_counts(learner, attempts, rules),
    )


def _counts(learner, attempts, rules):
    """A deleted learner's placeholder (quiz.accounts.deletion) answers nothing more: it counts in
    an assignment's completion where it has attempts, or where the assignment was already due
    when it was made (a miss is history), never in one that someone can no longer do."""
    return not learner.is_placeholder or bool(attempts) or rules.due_at <= learner.date_joined


def _column(assignment, cells):
    scores = [cell.score for cell in cells if cell.score is not None]
    counted = [cell for cell in cells if cell.counts]
    done = sum(1 for cell in counted if cell.finished)  # retrying after a submission still counts
    return Column(
        assignment=assignment,
        average=round(sum(scores) / len(scores), 1) if scores else None,
        median=median(scores) if scores else None,
        completion=percent(done, len(counted)) or 0,
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
