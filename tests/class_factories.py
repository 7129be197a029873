"""Builders for classes, question pools and assignments."""

from datetime import datetime, timedelta, timezone

from quiz.models import Assignment, Classroom, PoolQuestion, QuestionPool
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
