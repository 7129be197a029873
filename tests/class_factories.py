"""Builders for classes, question pools and assignments."""

from datetime import datetime, timedelta, timezone

from quiz.models import Assignment, Attempt, Classroom, PoolQuestion, QuestionPool
from quiz.study import answers
from quiz.teaching.rules import KeepOrder
from tests.factories import make_question_set, make_user

# A fixed "now" for rule tests: assignments open a day before and are due a day after.
NOW = datetime(2026, 5, 4, 10, 0, tzinfo=timezone.utc)


def make_instructor(username="teacher", **fields):
    return make_user(username, is_instructor=True, **fields)


def make_classroom(owner, name="Networking 101", learners=()):
    classroom = Classroom.objects.create(owner=owner, name=name)
    for learner in learners:
        classroom.join(learner)
    return classroom


def make_pool(owner, questions=None, title="Week 1 quiz", draw_count=None):
    questions = list(questions if questions is not None else make_question_set(questions=3).questions.all())
    pool = QuestionPool.objects.create(owner=owner, title=title, draw_count=draw_count)
    PoolQuestion.objects.bulk_create(
        PoolQuestion(pool=pool, question=q, position=n) for n, q in enumerate(questions, start=1)
    )
    return pool


def make_assignment(classroom, pool=None, **rules):
    pool = pool or make_pool(classroom.owner)
    fields = {
        "title": pool.title,
        "opens_at": NOW - timedelta(days=1),
        "due_at": NOW + timedelta(days=1),
        "shuffle": False,
        **rules,
    }
    return Assignment.objects.create(classroom=classroom, pool=pool, **fields)


def take(assignment, learner, picks, start=NOW, seconds=10):
    """One finished attempt picking the given choice positions (0-based, no shuffle)."""
    attempt, _ = Attempt.objects.get_or_create(
        user=learner, assignment=assignment, finished_at=None,
        defaults={"started_at": start, "due_at": assignment.due_at, "question_count": 0},
    )
    if not attempt.slots.exists():
        questions = assignment.pool.questions_for_attempt()
        attempt.delete()
        attempt = Attempt.objects.create_with_slots(
            user=learner, questions=questions, feedback="immediate", rng=KeepOrder(),
            assignment=assignment, started_at=start, due_at=assignment.due_at,
        )
    for offset, (slot, pick) in enumerate(zip(attempt.slots.order_by("position"), picks), start=1):
        answers.submit_answer(attempt=attempt, slot=slot, number=pick + 1, now=start + timedelta(seconds=seconds * offset))
    attempt.refresh_from_db()
    return attempt
