"""Assignments as a learner meets them: their status, and starting an attempt within the
rules (dates, attempts allowed, time limit, feedback timing), with per-learner overrides.

Keyword-only functions with an explicit `now`, so tests run on a fixed clock.
"""

import random
from dataclasses import dataclass

from django.db import IntegrityError
from django.db.models import Prefetch, Q
from django.utils import timezone

from quiz.lib.content_version import content_changed
from quiz.lib.scores import announce_scores_changed
from quiz.models import Assignment, AssignmentOverride, Attempt, Rules

from .standing import Standing, Status, standing_of


class RuleViolation(Exception):
    """Starting (or continuing) is not allowed; the message says why, for the learner."""


@dataclass
class LearnerAssignment:
    """One assignment as one learner sees it: their rules, their attempts (in start order)
    and where they stand (`standing.standing_of`, the rule the gradebook uses too)."""

    assignment: Assignment
    rules: Rules
    attempts: list
    standing: Standing

    @property
    def status(self):
        return self.standing.status

    @property
    def finished_count(self):
        return self.standing.finished

    @property
    def open_attempt_id(self):
        return self.standing.open_attempt_id

    @property
    def attempts_left(self):
        if self.rules.max_attempts is None:
            return None
        return max(self.rules.max_attempts - self.finished_count, 0)

    @property
    def can_start(self):
        return self.status != Status.UPCOMING and (self.open_attempt_id or self.attempts_left != 0)


def _with_learners_own(user, assignments):
    """The learner's override and attempts on each assignment, prefetched: two queries."""
    return assignments.prefetch_related(
        Prefetch("overrides", queryset=AssignmentOverride.objects.filter(learner=user)),
        Prefetch("attempts", queryset=Attempt.objects.filter(user=user).with_exclusions().order_by("started_at", "pk"), to_attr="mine"),
    )


def learner_assignments(*, user, now=None, classroom=None):
    """The learner's assignments in all their classes (or one), soonest due first. Three queries.
    Call `catch_up_learner` first, so timed attempts whose time ran out count as finished."""
    now = now or timezone.now()
    assignments = Assignment.objects.for_learner(user).select_related("classroom", "pool")
    if classroom is not None:
        assignments = assignments.filter(classroom=classroom)
    return [_as_seen_by(assignment, now) for assignment in _with_learners_own(user, assignments)]


def get_learner_assignment(*, user, assignment_id, now=None):
    """One assignment of the learner's classes, or None if it is not theirs."""
    now = now or timezone.now()
    assignments = Assignment.objects.for_learner(user).filter(pk=assignment_id).select_related("classroom", "pool")
    assignment = _with_learners_own(user, assignments).first()
    return assignment and _as_seen_by(assignment, now)


def _as_seen_by(assignment, now):
    override = next(iter(assignment.overrides.all()), None)
    rules = assignment.rules_for(override)
    standing = standing_of(attempts=assignment.mine, rules=rules, grading=assignment.grading, now=now)
    return LearnerAssignment(assignment, rules, assignment.mine, standing)


class KeepOrder:
    """A stand-in for `random` when the assignment says not to shuffle: samples are taken in order."""

    @staticmethod
    def sample(items, k):
        return list(items)[:k]


def draw_for_attempt(assignment, rng):
    """(questions, the rng that orders each question's choices) for one attempt, saving nothing:
    excluded questions left out, the pool's draw, and the order shuffled only when the
    assignment says so. Starting an attempt and the instructor's preview both draw through here."""
    questions = assignment.pool.questions_for_attempt(rng, leaving_out=assignment.exclusions.values("question"))
    if not assignment.shuffle:
        return questions, KeepOrder()
    return rng.sample(questions, k=len(questions)), rng


def start_attempt(*, user, seen, now=None, rng=None):
    """Resume the learner's open attempt on the assignment, or start one within its rules."""
    now = now or timezone.now()
    if seen.open_attempt_id:
        return Attempt.objects.get(pk=seen.open_attempt_id)
    rules, assignment = seen.rules, seen.assignment
    if now < rules.opens_at:
        raise RuleViolation("This assignment is not open yet.")
    if seen.attempts_left == 0:
        raise RuleViolation("You have used all your attempts for this assignment.")
    if _answers_released_at_due(assignment) and now >= rules.due_at:
        # After the due date its answers are shown; a new attempt would be answered from them.
        raise RuleViolation("This assignment closed on its due date, and its answers are now shown.")
    rng = rng or random
    questions, order_rng = draw_for_attempt(assignment, rng)
    if not questions:
        raise RuleViolation("This assignment has no questions yet.")
    timing = Assignment.FeedbackTiming
    try:
        return _create(user, assignment, rules, questions, order_rng, timing, now)
    except IntegrityError:  # a second tab started it at the same moment: use that one
        return Attempt.objects.get(user=user, assignment=assignment, finished_at__isnull=True)


def _answers_released_at_due(assignment):
    return assignment.feedback_timing == Assignment.FeedbackTiming.AFTER_DUE


def timing_for(assignment, rules, started_at):
    """Deadline, due date and reveal time of an attempt started at `started_at` under `rules`."""
    deadline = started_at + rules.time_limit if rules.time_limit else None
    reveal_at = None
    if _answers_released_at_due(assignment):
        # Answers are shown from the due date on, so an attempt still open then must close.
        deadline = min(deadline, rules.due_at) if deadline else rules.due_at
        reveal_at = rules.due_at
    elif assignment.feedback_timing == Assignment.FeedbackTiming.AFTER_ATTEMPT and started_at < rules.due_at:
        # Answers wait for "Submit all and finish": one still open at the due date is submitted
        # then with the answers saved, as Moodle submits open attempts when a quiz closes, so a
        # forgotten button never leaves answered work out of the gradebook. (Started late, the
        # learner submits it themselves.)
        deadline = min(deadline, rules.due_at) if deadline else rules.due_at
    return {"deadline": deadline, "due_at": rules.due_at, "reveal_at": reveal_at}


OVERRIDE_FIELDS = ("opens_at", "due_at", "time_limit", "max_attempts")


def save_override(*, assignment, learner, rules):
    """Give one learner their own dates, time limit or attempts (`rules`: OVERRIDE_FIELDS,
    None for "as the assignment says"); their attempt in progress follows at once."""
    AssignmentOverride.objects.update_or_create(
        assignment=assignment, learner=learner, defaults={name: rules.get(name) for name in OVERRIDE_FIELDS}
    )
    announce_scores_changed(assignment.pk, learner.pk)
    content_changed()
    apply_rules_to_attempts(assignment=assignment, learner=learner)


def delete_override(override):
    override.delete()
    content_changed()
    apply_rules_to_attempts(assignment=override.assignment, learner=override.learner)


def apply_rules_to_attempts(*, assignment, learner):
    """After an override changes, bring the learner's attempts under their new rules: one in
    progress gets its new deadline at once (extra time given mid-attempt counts), and every
    attempt, finished ones too, takes the learner's own due date, so lateness and the moment
    answers are shown follow it. (Answers held until the class's due date must stay hidden
    from a learner whose extension runs later, or attempt 1's answers would help attempt 2.)"""
    override = assignment.overrides.filter(learner=learner).first()
    rules = assignment.rules_for(override)
    attempts = Attempt.objects.filter(assignment=assignment, user=learner)
    for attempt in attempts.filter(finished_at__isnull=True):
        Attempt.objects.filter(pk=attempt.pk).update(**timing_for(assignment, rules, attempt.started_at))
    finished = attempts.filter(finished_at__isnull=False)
    finished.update(
        due_at=rules.due_at,
        is_late=Q(finished_at__gt=rules.due_at),
        reveal_at=rules.due_at if _answers_released_at_due(assignment) else None,
    )


def apply_rules_to_everyone(assignment):
    """After the assignment's own dates or limits change: every learner who attempted it."""
    learners = Attempt.objects.filter(assignment=assignment).order_by().values_list("user", flat=True).distinct()
    for learner_id in learners:
        apply_rules_to_attempts(assignment=assignment, learner=learner_id)


def _create(user, assignment, rules, questions, order_rng, timing, now):
    return Attempt.objects.create_with_slots(
        user=user,
        questions=questions,
        feedback=Attempt.Feedback.IMMEDIATE if assignment.feedback_timing == timing.IMMEDIATE else Attempt.Feedback.DEFERRED,
        rng=order_rng,
        assignment=assignment,
        title=assignment.title,
        started_at=now,
        **timing_for(assignment, rules, now),
    )
