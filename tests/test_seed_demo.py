"""seed_demo: the demo data the benchmarks compare across sizes."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Count

from quiz.management.commands.seed_demo import DEMO_ATTEMPTS, QUESTIONS_PER_ATTEMPT
from quiz.models import Attempt, AttemptSlot, User


def seed(answers):
    call_command("seed_demo", "--answers", str(answers), "--learners", "20", "--reviews", "50", stdout=io.StringIO())


def class_and_demo_work():
    per_week = Attempt.objects.filter(assignment__isnull=False).values("assignment__title").annotate(n=Count("pk"))
    demo = Attempt.objects.filter(user__username="demo").count()
    return {row["assignment__title"]: row["n"] for row in per_week}, demo


# 20 learners: Week 1 by all of them, each later week by half as many (rounded up).
@pytest.mark.parametrize("answers", [1000, 3000])
def test_it_gives_the_class_and_the_demo_learner_the_same_work_at_any_size(db, answers):
    seed(answers)

    assert class_and_demo_work() == ({"Week 1": 20, "Week 2": 10, "Week 3": 5, "Week 4": 3}, DEMO_ATTEMPTS)
    assert AttemptSlot.objects.count() == answers
    # The rest of the history is the other learners' self-study.
    assert Attempt.objects.filter(assignment=None).exclude(user__username="demo").count() == (
        answers // QUESTIONS_PER_ATTEMPT - 38 - DEMO_ATTEMPTS
    )


def test_it_refuses_a_database_that_already_has_demo_data(db):
    seed(1000)

    with pytest.raises(CommandError, match="already here"):
        seed(1000)
    assert User.objects.filter(username="demo").count() == 1
